// Global setup of the browser project: builds the public site once, the way `npm start` does
// (an exchange on a temporary data directory, a market snapshot from it, `astro build`), into a
// temporary folder the site tests read through `inject('siteDir')`.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import type { TestProject } from 'vitest/node'

import '../../apps/site/test-browser/provided.ts'

const root = join(import.meta.dirname, '..', '..')

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
}

function exchangeUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('exchange did not start within 120 s')),
      120_000,
    )
    child.once('exit', (code) => reject(new Error(`exchange exited with ${code}`)))
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('POLDER_READY ')) return
      clearTimeout(timer)
      const { urls } = JSON.parse(line.slice('POLDER_READY '.length)) as {
        urls: { label: string; url: string }[]
      }
      resolve(new URL(urls.find((url) => url.label === 'Exchange REST API')!.url).origin)
    })
  })
}

export default async function setup(project: TestProject): Promise<() => void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'polder-site-exchange-'))
  const siteDir = mkdtempSync(join(tmpdir(), 'polder-site-'))
  const exchange = run(
    ['src/main.ts', 'serve', '--port', '0', '--data', dataDir],
    join(root, 'apps/exchange'),
    { POLDER_SUPERVISED: '1', LOG_LEVEL: 'warn' },
  )
  try {
    const url = await exchangeUrl(exchange)
    const started = performance.now()
    const build = run(
      ['scripts/site.ts', 'build', '--exchange', url, '--out', siteDir],
      join(root, 'apps/site'),
      {},
    )
    build.stdout!.pipe(process.stdout)
    const code = await new Promise<number | null>((resolve) => build.once('exit', resolve))
    if (code !== 0) throw new Error(`site build failed with exit code ${code}`)
    project.provide('siteDir', siteDir)
    project.provide('siteBuildSeconds', (performance.now() - started) / 1000)
  } finally {
    exchange.kill('SIGTERM')
  }
  return () => {
    rmSync(siteDir, { recursive: true, force: true })
    rmSync(dataDir, { recursive: true, force: true })
  }
}
