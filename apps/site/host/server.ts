// The local static host for the built site, with the same rules as host/nginx.conf: security
// headers, the redirect table, trailing-slash normalisation, and the per-language 404 page.

import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { extname, join, normalize, resolve } from 'node:path'
import { needsTrailingSlash, notFoundPage, redirects, securityHeaders } from './rules.ts'

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.webmanifest': 'application/manifest+json',
  '.pdf': 'application/pdf',
}

async function fileAt(root: string, path: string): Promise<string | undefined> {
  const target = resolve(root, `.${normalize(path)}`)
  if (!target.startsWith(root)) return undefined
  const candidate = path.endsWith('/') ? join(target, 'index.html') : target
  try {
    return (await stat(candidate)).isFile() ? candidate : undefined
  } catch {
    return undefined
  }
}

export function createSiteServer(root: string): Server {
  const base = resolve(root)
  const table = new Map(redirects().map((rule) => [rule.from, rule]))
  return createServer(async (request, response) => {
    for (const [name, value] of Object.entries(securityHeaders)) response.setHeader(name, value)
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
    const file = found ?? (await fileAt(base, notFoundPage(path))) ?? join(base, '404.html')
    response.writeHead(found === undefined ? 404 : 200, {
      'Content-Type': types[extname(file)] ?? 'application/octet-stream',
      'Cache-Control': file.includes('/_astro/')
        ? 'public, max-age=31536000, immutable'
        : 'no-cache',
    })
    if (request.method === 'HEAD') {
      response.end()
      return
    }
    createReadStream(file).pipe(response)
  })
}
