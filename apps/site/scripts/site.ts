// The site as one part of `npm start`, and its build on its own:
//   node scripts/site.ts build [--exchange URL] [--out DIR]   snapshot (if an exchange is given) + astro build
//   node scripts/site.ts serve [--exchange URL] [--port N] [--host H]   build, then serve dist/
// With --exchange, prices, changes and charts on the pages come from that exchange (a snapshot
// taken now); without, from the catalogue's reference prices, labelled as such.

import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createSiteServer } from '../host/server.ts'
import { takeSnapshot } from './snapshot.ts'

const siteRoot = join(import.meta.dirname, '..')

function countPages(dir: string): number {
  let count = 0
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) count += countPages(path)
    else if (name.endsWith('.html')) count += 1
  }
  return count
}

export async function buildSite(options: {
  exchange?: string | undefined
  out: string
}): Promise<{ pages: number; seconds: number; snapshotSeconds: number }> {
  const snapshotStarted = performance.now()
  if (options.exchange !== undefined) {
    const dir = join(siteRoot, '.snapshot')
    mkdirSync(dir, { recursive: true })
    const file = join(dir, 'markets.json')
    writeFileSync(file, JSON.stringify(await takeSnapshot(options.exchange)))
    process.env.POLDER_SITE_SNAPSHOT = file
  }
  const started = performance.now()
  process.env.POLDER_SITE_OUT = options.out
  const { build } = await import('astro')
  await build({ root: siteRoot, logLevel: 'warn' })
  return {
    pages: countPages(options.out),
    seconds: (performance.now() - started) / 1000,
    snapshotSeconds: (started - snapshotStarted) / 1000,
  }
}

if (import.meta.main) {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      exchange: { type: 'string' },
      out: { type: 'string', default: join(siteRoot, 'dist') },
      port: { type: 'string', default: '4321' },
      host: { type: 'string', default: '127.0.0.1' },
    },
  })
  const command = positionals[0] ?? 'build'
  if (command !== 'build' && command !== 'serve') {
    console.error('usage: site.ts build|serve [--exchange URL] [--out DIR] [--port N] [--host H]')
    process.exit(2)
  }
  const { pages, seconds, snapshotSeconds } = await buildSite({
    exchange: values.exchange,
    out: values.out,
  })
  console.log(
    `site: ${pages} pages built in ${seconds.toFixed(1)} s` +
      (values.exchange === undefined
        ? ''
        : ` (market snapshot taken in ${snapshotSeconds.toFixed(1)} s before)`),
  )
  if (command === 'serve') {
    const server = createSiteServer(values.out)
    server.listen(Number(values.port), values.host, () => {
      const { port } = server.address() as AddressInfo
      const url = `http://${values.host}:${port}`
      const urls = [
        { label: 'Public site', url: `${url}/` },
        { label: 'Public site (en)', url: `${url}/en/` },
      ]
      if (process.env.POLDER_SUPERVISED === '1')
        process.stdout.write(`POLDER_READY ${JSON.stringify({ urls })}\n`)
      else for (const entry of urls) console.log(`${entry.label}: ${entry.url}`)
    })
    const stop = (): void => {
      server.close(() => process.exit(0))
      server.closeAllConnections()
    }
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, stop)
  }
}
