// The host rules as the two hosts apply them: the local server (`npm start`) and the nginx
// snippet, both run against the same fixture directory laid out like a build, and expected to
// answer the same statuses. The nginx half runs only where nginx is installed (it says so when
// it skips); the generated snippet's meaning is also checked without nginx.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import type { Server } from 'node:http'
import { type AddressInfo, createServer as createNetServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { locales } from '@polder/i18n'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  nginxConfig,
  notFoundPage,
  redirects,
  securityHeaders,
  serverErrorPage,
} from '../host/rules.ts'
import { createSiteServer } from '../host/server.ts'

const snippetFile = new URL('../host/nginx.conf', import.meta.url)

/** A miniature build: the pages the rules name, each saying what it is. */
function writeFixture(dir: string): void {
  const page = (path: string, text: string): void => {
    const file = join(dir, path)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, `<!doctype html><html lang="x"><body>${text}</body></html>`)
  }
  page('index.html', 'root page')
  page('404.html', 'root not found')
  page('500.html', 'server error page')
  page('_astro/app.js', 'console.log(1)')
  for (const lang of locales) {
    page(`${lang}/index.html`, `${lang} home`)
    page(`${lang}/fees/index.html`, `${lang} fees`)
    page(`${lang}/404.html`, `${lang} not found`)
    page(`${lang}/404/index.html`, `${lang} not found`)
  }
  // A file that cannot be read (a symlink to itself): the local server answers 500 (nginx's
  // try_files counts it as a miss, so nginx fails through a location of the test's own).
  symlinkSync('broken.html', join(dir, 'en/broken.html'))
  // nginx's workers may run as another user.
  chmodSync(dir, 0o755)
}

type Expectation = { path: string; status: number; body?: string; location?: string }

/** What every host must answer, from the rules of spec §2 and host/rules.ts. */
const expectations: Expectation[] = [
  { path: '/', status: 200, body: 'root page' },
  { path: '/en/fees/', status: 200, body: 'en fees' },
  ...locales.map((lang) => ({
    path: `/${lang}/no-such-page/`,
    status: 404,
    body: `${lang} not found`,
  })),
  { path: '/nl/deep/no/such/page/', status: 404, body: 'nl not found' },
  { path: '/de/missing.html', status: 404, body: 'de not found' },
  { path: '/nowhere/', status: 404, body: 'root not found' },
  { path: '/pt/fees/', status: 404, body: 'root not found' },
  { path: '/en/fees', status: 301, location: '/en/fees/' },
  { path: '/de/gebuehren/', status: 301, location: '/de/fees/' },
  { path: '/nl/tarieven/', status: 301, location: '/nl/fees/' },
]

/**
 * Checks a host against the expectations, plus one path the host fails to serve (each host has
 * its own way to fail), which must answer 500 with /500.html.
 */
async function check(base: string, failingPath: string): Promise<string[]> {
  const failures: string[] = []
  const failing: Expectation = { path: failingPath, status: 500, body: 'server error page' }
  for (const expected of [...expectations, failing]) {
    const response = await fetch(`${base}${expected.path}`, { redirect: 'manual' })
    const body = await response.text()
    const location = response.headers.get('location')
    const actual: Expectation = { path: expected.path, status: response.status }
    if (expected.body !== undefined)
      actual.body = body.includes(expected.body) ? expected.body : body
    if (expected.location !== undefined)
      actual.location = location === null ? '(none)' : new URL(location, base).pathname
    if (JSON.stringify(actual) !== JSON.stringify(expected))
      failures.push(`${JSON.stringify(expected)} answered ${JSON.stringify(actual)}`)
    if (response.headers.get('x-content-type-options') !== 'nosniff')
      failures.push(`${expected.path} lacks the security headers`)
  }
  return failures
}

let fixture: string

beforeAll(() => {
  fixture = mkdtempSync(join(tmpdir(), 'polder-host-'))
  writeFixture(fixture)
})

afterAll(() => {
  rmSync(fixture, { recursive: true, force: true })
})

describe('the host rules', () => {
  it('send a miss under /{lang}/ to that language’s 404.html, anything else to /404.html', () => {
    expect(notFoundPage('/nl/does-not-exist/')).toBe('/nl/404.html')
    expect(notFoundPage('/de/')).toBe('/de/404.html')
    expect(notFoundPage('/pt/x/')).toBe('/404.html')
    expect(notFoundPage('/english/')).toBe('/404.html')
    expect(serverErrorPage).toBe('/500.html')
  })
})

describe('the nginx snippet', () => {
  const config = nginxConfig()
  const directives = (block: string): string[][] =>
    block
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter((words) => words[0] !== '')
  const locationBody = (prefix: string): string | undefined =>
    new RegExp(`^location ${prefix} \\{(.*)\\}$`, 'm').exec(config)?.[1]
  const serverLevel = config
    .split('\n')
    .filter((line) => !line.startsWith('#') && !line.startsWith('location'))
    .join('\n')

  it('is generated from the same rules (host/nginx.conf is current)', () => {
    expect(readFileSync(snippetFile, 'utf8')).toBe(config)
  })

  it('answers misses with 404: no try_files falls back to a page, no error_page changes the status', () => {
    const tryFiles = [...config.matchAll(/^location [^{]*\{.*?try_files ([^;]*);/gm)].map((match) =>
      match[1]!.split(' '),
    )
    expect(tryFiles.length).toBeGreaterThan(0)
    for (const args of tryFiles) {
      expect(args.at(-1)).toBe('=404')
      expect(args.slice(0, -1).every((arg) => arg.startsWith('$uri'))).toBe(true)
    }
    const code = config
      .split('\n')
      .filter((line) => !line.startsWith('#'))
      .join('\n')
      .replace(/[{}]/g, ';')
    const errorPages = directives(code).filter((words) => words[0] === 'error_page')
    expect(errorPages.length).toBeGreaterThan(locales.length)
    for (const words of errorPages) expect(words.some((word) => word.startsWith('='))).toBe(false)
  })

  it('gives every language location its own 404 page and the 500 page', () => {
    for (const lang of locales) {
      const body = locationBody(`/${lang}/`)
      expect(body, lang).toBeDefined()
      const rules = directives(body!)
      expect(rules).toContainEqual(['error_page', '404', notFoundPage(`/${lang}/x/`)])
      expect(rules).toContainEqual(['error_page', '500', '502', '503', '504', serverErrorPage])
    }
    expect(directives(serverLevel)).toContainEqual(['error_page', '404', '/404.html'])
    expect(directives(serverLevel)).toContainEqual([
      'error_page',
      '500',
      '502',
      '503',
      '504',
      serverErrorPage,
    ])
  })

  it('carries every redirect and security header', () => {
    for (const rule of redirects())
      expect(directives(locationBody(`= ${rule.from}`) ?? '')).toEqual([
        ['return', String(rule.status), rule.to],
      ])
    for (const name of Object.keys(securityHeaders))
      expect(config).toMatch(new RegExp(`^add_header ${name} ".*" always;$`, 'm'))
  })
})

describe('the local server (npm start)', () => {
  let server: Server

  beforeAll(async () => {
    server = createSiteServer(fixture)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  })

  afterAll(() => {
    server?.close()
  })

  it('answers as the rules say: pages 200, misses 404 with the right page, errors 500', async () => {
    const { port } = server.address() as AddressInfo
    expect(await check(`http://127.0.0.1:${port}`, '/en/broken.html')).toEqual([])
  })
})

function nginxBinary(): string | undefined {
  for (const candidate of ['nginx', '/usr/sbin/nginx']) {
    const probe = spawnSync(candidate, ['-v'])
    if (probe.error === undefined) return candidate
  }
  return undefined
}

async function freePort(): Promise<number> {
  const probe = createNetServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as AddressInfo
  await new Promise((resolve) => probe.close(resolve))
  return port
}

const nginx = nginxBinary()
if (nginx === undefined)
  console.log('host.test: nginx is not installed; the nginx snippet is checked as text only')

describe.skipIf(nginx === undefined)('nginx with the generated snippet', () => {
  let child: ChildProcess | undefined
  let base: string
  let work: string
  let errors = ''

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'polder-nginx-'))
    const port = await freePort()
    const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
      .map((kind) => `  ${kind}_temp_path ${join(work, kind)};`)
      .join('\n')
    writeFileSync(
      join(work, 'nginx.conf'),
      [
        'daemon off;',
        'master_process off;',
        `pid ${join(work, 'nginx.pid')};`,
        'events { worker_connections 64; }',
        'http {',
        '  access_log off;',
        temp,
        '  types { text/html html; text/javascript js; }',
        '  server {',
        `    listen 127.0.0.1:${port};`,
        `    root ${fixture};`,
        `    include ${snippetFile.pathname};`,
        '    location = /server-error/ { return 500; }',
        '  }',
        '}',
        '',
      ].join('\n'),
    )
    child = spawn(nginx!, ['-p', work, '-e', 'stderr', '-c', join(work, 'nginx.conf')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    child.stderr!.on('data', (chunk: Buffer) => {
      errors += chunk.toString()
    })
    base = `http://127.0.0.1:${port}`
    for (let attempt = 0; ; attempt += 1) {
      if (child.exitCode !== null) throw new Error(`nginx exited: ${errors}`)
      try {
        await fetch(`${base}/`)
        break
      } catch (error) {
        if (attempt === 100)
          throw new Error(`nginx did not answer within 5 s: ${errors}`, { cause: error })
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
  })

  afterAll(async () => {
    if (child !== undefined && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
    if (work !== undefined) rmSync(work, { recursive: true, force: true })
  })

  it('answers as the local server does: pages 200, misses 404 with the right page, errors 500', async () => {
    expect(await check(base, '/server-error/')).toEqual([])
  })
})
