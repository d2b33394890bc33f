// Prints the site's figures from a real build (not a timed test):
//   node apps/site/scripts/figures.ts [--exchange URL] [--no-lighthouse]
// full build time and page count, JavaScript shipped per page kind (gzip), and Lighthouse
// scores (mobile preset, the system Chromium) on the en and nl asset, price and blog pages.

import { readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'
import { chromium } from 'playwright-core'
import { chromiumArgs, ensureChromium } from '../../../scripts/lib/chromium.ts'
import { createSiteServer } from '../host/server.ts'
import { buildSite } from './site.ts'

const { values } = parseArgs({
  options: { exchange: { type: 'string' }, 'no-lighthouse': { type: 'boolean', default: false } },
})
const out = join(tmpdir(), `polder-site-figures-${process.pid}`)
const { pages, seconds, snapshotSeconds } = await buildSite({ exchange: values.exchange, out })
console.log(
  `build: ${pages} pages in ${seconds.toFixed(1)} s (astro build of every page in every language)`,
)
if (values.exchange)
  console.log(`market snapshot from the exchange: ${snapshotSeconds.toFixed(1)} s`)

function scriptBytes(path: string): number {
  const html = readFileSync(join(out, path, 'index.html'), 'utf8')
  let total = 0
  for (const match of html.matchAll(/<script(?![^>]*ld\+json)[^>]*>([\s\S]*?)<\/script>/g))
    total += gzipSync(match[1] ?? '').length
  // Islands load their component and renderer when visible.
  for (const match of html.matchAll(/(?:component-url|renderer-url)="([^"]+)"/g))
    total += gzipSync(readFileSync(join(out, match[1]!))).length
  return total
}
for (const path of [
  'en/bitcoin/price',
  'en/blog/polder-account-guarantee',
  'en/terms',
  'en/markets',
])
  console.log(`javascript /${path}/: ${(scriptBytes(path) / 1024).toFixed(1)} KB gzip`)

if (!values['no-lighthouse']) {
  const server = createSiteServer(out)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const port = 9300 + (process.pid % 500)
  const browser = await chromium.launch({
    executablePath: ensureChromium(),
    args: [...chromiumArgs, `--remote-debugging-port=${port}`],
  })
  const { default: lighthouse } = await import('lighthouse')
  for (const path of [
    '/en/bitcoin/',
    '/en/bitcoin/price/',
    '/en/blog/polder-account-guarantee/',
    '/nl/bitcoin/',
    '/nl/bitcoin/koers/',
    '/nl/blog/polder-account-guarantee/',
  ]) {
    const result = await lighthouse(`${base}${path}`, { port, output: 'json', logLevel: 'error' })
    const categories = result?.lhr.categories ?? {}
    // A category without a score means Lighthouse could not measure it: say so, never print 0.
    const score = (id: string): string => {
      const value = categories[id]?.score
      return value == null ? 'not measured' : String(Math.round(value * 100))
    }
    const problem = result?.lhr.runtimeError
    if (problem) console.log(`lighthouse ${path}: ${problem.code}: ${problem.message}`)
    for (const audit of Object.values(result?.lhr.audits ?? {}))
      if (audit.scoreDisplayMode === 'error')
        console.log(`lighthouse ${path}: audit ${audit.id} failed: ${audit.errorMessage}`)
    console.log(
      `lighthouse ${path}: performance ${score('performance')}, accessibility ${score('accessibility')}, best practices ${score('best-practices')}, SEO ${score('seo')}`,
    )
  }
  await browser.close()
  server.close()
}
