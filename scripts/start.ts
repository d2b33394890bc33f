// `npm start` after bootstrap: build what needs building, start every part of the product that
// exists in this checkout on embedded defaults, and print the local URLs once each answers.
// A part reports readiness with one stdout line `POLDER_READY {"urls":[...]}`; this supervisor
// fetches every reported URL and prints only those that answered, so it never shows a dead link.
//
// Flags: --port N (the exchange server's port; 0 picks a free one), --host H, --data DIR (the
// exchange's data directory; default data/ in the repository, ignored by git).
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'

const root = join(import.meta.dirname, '..')
// The exchange's Node flags, from its own workspace (which a checkout may not have yet).
const exchangeFlagsPath = join(root, 'apps/exchange/src/nodeFlags.ts')
const serverNodeFlags: readonly string[] = existsSync(exchangeFlagsPath)
  ? (
      (await import(
        pathToFileURL(exchangeFlagsPath).href
      )) as typeof import('../apps/exchange/src/nodeFlags.ts')
    ).serverNodeFlags
  : []
// The site's build of some 5,500 pages takes 15-35 s alone; on a slow machine with the test suite's
// other worker busy it took over 120 s (one CI run of the npm start test, 2026-11-28).
const readyTimeoutMs = 300_000
const probeTimeoutMs = 5_000

const { values: flags } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PORT ?? '8080' },
    host: { type: 'string', default: process.env.HOST ?? '127.0.0.1' },
    data: { type: 'string', default: process.env.POLDER_DATA ?? join(root, 'data') },
  },
})

type ReadyUrl = { label: string; url: string; probe?: string }
type Part = {
  name: string
  workspace: string
  /** Said before the part starts, so that a wait has a name. */
  starting: string
  /** Arguments, given the URLs the parts started before it reported. */
  args: (ready: ReadonlyMap<string, ReadyUrl[]>) => string[]
}

// Every part of the product that `npm start` runs, in start order. A part whose workspace is
// not in this checkout is skipped, so the list can name parts before they exist.
const parts: Part[] = [
  {
    name: 'exchange',
    workspace: 'apps/exchange',
    starting: 'Starting the exchange server and its market simulator ...',
    args: () => [
      ...serverNodeFlags,
      'src/main.ts',
      'serve',
      '--port',
      flags.port,
      '--host',
      flags.host,
      '--data',
      flags.data,
    ],
  },
  {
    // The public site is built with a market snapshot from the exchange just started, then
    // served with the host rules (per-language 404, redirects, security headers).
    name: 'site',
    workspace: 'apps/site',
    starting: 'Building the public site in six languages (15-30 s, minutes on a slow machine) ...',
    args: (ready) => {
      const api = ready.get('exchange')?.find((url) => url.label === 'Exchange REST API')
      const exchange = api === undefined ? [] : ['--exchange', new URL(api.url).origin]
      const port = flags.port === '0' ? '0' : String(Number(flags.port) + 1)
      return ['scripts/site.ts', 'serve', '--port', port, '--host', flags.host, ...exchange]
    },
  },
]
const ready = new Map<string, ReadyUrl[]>()

const children: ChildProcess[] = []
let stopping = false

function stopAll(exitCode: number): void {
  if (stopping) return
  stopping = true
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM')
  const forceAfterMs = 10_000
  const exited = (child: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve()
      else child.once('exit', () => resolve())
    })
  let forced = false
  const timer = setTimeout(() => {
    // Past the limit the parts are killed, and still waited for (a killed process is gone at
    // once): whoever started this gets the prompt back when nothing of it runs.
    forced = true
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
  }, forceAfterMs)
  timer.unref()
  Promise.all(children.map(exited)).then(() => process.exit(forced ? exitCode || 1 : exitCode))
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => stopAll(0))

function startPart(part: Part, args: string[]): Promise<ReadyUrl[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: join(root, part.workspace),
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, POLDER_SUPERVISED: '1' },
    })
    children.push(child)
    const timer = setTimeout(
      () => reject(new Error(`${part.name} did not report ready within ${readyTimeoutMs} ms`)),
      readyTimeoutMs,
    )
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`${part.name} exited (${signal ?? `code ${code}`}) before it was ready`))
      if (!stopping) stopAll(1)
    })
    const lines = createInterface({ input: child.stdout! })
    lines.on('line', (line) => {
      if (line.startsWith('POLDER_READY ')) {
        clearTimeout(timer)
        resolve((JSON.parse(line.slice('POLDER_READY '.length)) as { urls: ReadyUrl[] }).urls)
      } else {
        process.stdout.write(`[${part.name}] ${line}\n`)
      }
    })
  })
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(probeTimeoutMs) })
    await response.arrayBuffer()
    return response.ok
  } catch {
    return false
  }
}

const shown: ReadyUrl[] = []
try {
  for (const part of parts) {
    if (!existsSync(join(root, part.workspace, 'package.json'))) continue
    console.log(part.starting)
    const urls = await startPart(part, part.args(ready))
    ready.set(part.name, urls)
    for (const url of urls) {
      if (await answers(url.probe ?? url.url)) shown.push(url)
      else console.error(`${part.name}: ${url.label} at ${url.url} did not answer; not listed.`)
    }
  }
} catch (error) {
  console.error(`npm start failed: ${(error as Error).message}`)
  stopAll(1)
}

if (!stopping) {
  if (shown.length === 0) {
    console.error('Nothing answered; stopping.')
    stopAll(1)
  } else {
    const width = Math.max(...shown.map((url) => url.label.length))
    console.log('\nPolder is running:')
    for (const url of shown) console.log(`  ${url.label.padEnd(width)}  ${url.url}`)
    console.log('\nPress Ctrl+C to stop.')
  }
}
