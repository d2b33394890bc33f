// The local static host for the built site, with the same rules as host/nginx.conf: security
// headers, the redirect table, trailing-slash normalisation, the per-language 404 page (status
// 404) and /500.html (status 500) when serving fails.

import { open, stat } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { extname, join, normalize, resolve } from 'node:path'
import {
  needsTrailingSlash,
  notFoundPage,
  type Redirect,
  redirects,
  securityHeaders,
  serverErrorPage,
} from './rules.ts'

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webmanifest': 'application/manifest+json',
  '.pdf': 'application/pdf',
}

/** Errors that mean "no such file", as nginx reads them; any other error is the server's fault. */
const missing = new Set(['ENOENT', 'ENOTDIR', 'ENAMETOOLONG'])

async function fileAt(root: string, path: string): Promise<string | undefined> {
  const target = resolve(root, `.${normalize(path)}`)
  if (!target.startsWith(root)) return undefined
  const candidate = path.endsWith('/') ? join(target, 'index.html') : target
  try {
    return (await stat(candidate)).isFile() ? candidate : undefined
  } catch (error) {
    if (missing.has((error as NodeJS.ErrnoException).code ?? '')) return undefined
    throw error
  }
}

/** Sends a file with a status; the file is opened before the headers go out, so a file that
 * cannot be read is still a clean error response. */
async function send(
  request: IncomingMessage,
  response: ServerResponse,
  file: string,
  status: number,
): Promise<void> {
  const handle = await open(file, 'r')
  response.writeHead(status, {
    'Content-Type': types[extname(file)] ?? 'application/octet-stream',
    'Cache-Control': file.includes('/_astro/') ? 'public, max-age=31536000, immutable' : 'no-cache',
  })
  if (request.method === 'HEAD') {
    await handle.close()
    response.end()
    return
  }
  // A read failing once the status is sent can only cut the response short.
  handle
    .createReadStream()
    .on('error', (error) => response.destroy(error))
    .pipe(response)
}

async function answer(
  base: string,
  table: ReadonlyMap<string, Redirect>,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://localhost')
  let path: string
  try {
    path = decodeURIComponent(url.pathname)
  } catch {
    response.writeHead(400).end('bad path')
    return
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { Allow: 'GET, HEAD' }).end()
    return
  }
  const redirect = table.get(path)
  if (redirect !== undefined) {
    response.writeHead(redirect.status, { Location: `${redirect.to}${url.search}` }).end()
    return
  }
  if (needsTrailingSlash(path)) {
    response.writeHead(301, { Location: `${path}/${url.search}` }).end()
    return
  }
  const found = await fileAt(base, path)
  if (found !== undefined) return send(request, response, found, 200)
  const notFound = (await fileAt(base, notFoundPage(path))) ?? join(base, '404.html')
  return send(request, response, notFound, 404)
}

/** A server error: /500.html with status 500, or plain text when even that cannot be read. */
async function failed(
  base: string,
  request: IncomingMessage,
  response: ServerResponse,
  error: unknown,
): Promise<void> {
  console.error(`site server: ${request.method} ${request.url} failed:`, error)
  if (response.headersSent) {
    response.destroy()
    return
  }
  try {
    await send(request, response, join(base, `.${serverErrorPage}`), 500)
  } catch {
    if (!response.headersSent)
      response.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' })
    response.end('internal server error')
  }
}

export function createSiteServer(root: string): Server {
  const base = resolve(root)
  const table = new Map(redirects().map((rule) => [rule.from, rule]))
  return createServer(async (request, response) => {
    for (const [name, value] of Object.entries(securityHeaders)) response.setHeader(name, value)
    try {
      await answer(base, table, request, response)
    } catch (error) {
      await failed(base, request, response, error)
    }
  })
}
