// The built site in Chromium through its own host rules: axe-core finds no WCAG 2.2 A/AA
// violation on one page of each template in each language (light, and dark for English), the
// per-language 404 rule and redirects work, and the islands do what they promise.
import { readFileSync } from 'node:fs'
import type { Server } from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { type Browser, type BrowserContext, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { chromiumArgs, ensureChromium } from '../../../scripts/lib/chromium.ts'
import { affiliatePartners } from '../src/data/affiliates.ts'
import './provided.ts'
import { createSiteServer } from '../host/server.ts'
import { languages, newsWords, priceWords } from './specTables.ts'

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
)

let server: Server
let base: string
let browser: Browser

beforeAll(async () => {
  server = createSiteServer(inject('siteDir'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  browser = await chromium.launch({ executablePath: ensureChromium(), args: chromiumArgs })
})

afterAll(async () => {
  await browser?.close()
  server?.close()
})

/** One page per template (spec §2), plus the home page and the markets table. */
function templatePages(lang: (typeof languages)[number]): string[] {
  return [
    `/${lang}/`,
    `/${lang}/about/`,
    `/${lang}/terms/`,
    `/${lang}/blog/`,
    `/${lang}/blog/polder-account-guarantee/`,
    `/${lang}/affiliate/${affiliatePartners[0]!.slug}/`,
    `/${lang}/buy/bitcoin/`,
    `/${lang}/bitcoin/`,
    `/${lang}/bitcoin/${priceWords[lang]}/`,
    `/${lang}/bitcoin/${newsWords[lang]}/`,
    `/${lang}/markets/`,
    `/${lang}/fees/`,
    `/${lang}/no-such-page/`,
  ]
}

async function violations(context: BrowserContext, path: string): Promise<string[]> {
  const page = await context.newPage()
  await page.goto(`${base}${path}`)
  await page.evaluate(axeSource)
  const result = (await page.evaluate(() =>
    // biome-ignore lint/suspicious/noExplicitAny: axe is injected into the page at run time
    (window as any).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] },
    }),
  )) as { violations: { id: string; nodes: { target: string[] }[] }[] }
  await page.close()
  return result.violations.map(
    (v) =>
      `${path}: ${v.id} at ${v.nodes
        .map((n) => n.target.join(' '))
        .slice(0, 3)
        .join(', ')}`,
  )
}

/**
 * The violations on every page of `paths`, two pages at a time (axe's run is most of the time a
 * page takes, and the machine has two cores).
 */
async function violationsOn(context: BrowserContext, paths: readonly string[]): Promise<string[]> {
  const queue = [...paths]
  const found: string[][] = []
  const lane = async () => {
    for (let path = queue.shift(); path !== undefined; path = queue.shift())
      found.push(await violations(context, path))
  }
  await Promise.all([lane(), lane()])
  return found.flat().sort()
}

describe('accessibility (axe-core, WCAG 2.2 AA)', () => {
  for (const lang of languages)
    it(`finds no violation on any template in ${lang}`, async () => {
      // axe is injected by the test harness, which the pages' CSP would rightly refuse.
      const context = await browser.newContext({ bypassCSP: true, colorScheme: 'light' })
      const found = await violationsOn(context, templatePages(lang))
      await context.close()
      expect(found).toEqual([])
    })

  it('finds no violation in the dark theme either', async () => {
    const context = await browser.newContext({ bypassCSP: true, colorScheme: 'dark' })
    const found = await violationsOn(context, templatePages('en'))
    await context.close()
    expect(found).toEqual([])
  })
})

describe('host rules', () => {
  it('answers a miss under /{lang}/ with that language’s 404 page and status 404', async () => {
    for (const lang of languages) {
      const response = await fetch(`${base}/${lang}/no-such-page/`)
      expect(response.status).toBe(404)
      expect(await response.text()).toContain(`<html lang="${lang}"`)
    }
    const root = await fetch(`${base}/nowhere/`)
    expect(root.status).toBe(404)
    expect(await root.text()).toContain('<html lang="en"')
  })

  it('applies the redirect table and the trailing-slash rule, with security headers', async () => {
    const redirect = await fetch(`${base}/de/gebuehren/`, { redirect: 'manual' })
    expect(redirect.status).toBe(301)
    expect(redirect.headers.get('location')).toBe('/de/fees/')
    const slash = await fetch(`${base}/en/fees`, { redirect: 'manual' })
    expect(slash.headers.get('location')).toBe('/en/fees/')
    const page = await fetch(`${base}/en/`)
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(page.headers.get('strict-transport-security')).toContain('max-age=')
    expect(page.headers.get('x-content-type-options')).toBe('nosniff')
    expect(await page.text()).not.toMatch(/unsafe-inline/)
  })
})

describe('the browser side of the redirect table', () => {
  it('sends a visitor who lands on a 404 page for a moved path to its target', async () => {
    // A host without the server-side rules: every miss gets the language's 404 page.
    const page = await browser.newPage()
    await page.route('**/nl/tarieven/', (route) =>
      route.fulfill({
        status: 404,
        contentType: 'text/html',
        body: readFileSync(join(inject('siteDir'), 'nl/404/index.html'), 'utf8'),
      }),
    )
    await page.goto(`${base}/nl/tarieven/?ref=x#top`)
    await page.waitForURL(`${base}/nl/fees/?ref=x#top`)
    expect(await page.locator('h1').textContent()).not.toBe('')
    await page.close()
  })
})

describe('islands under the real CSP', () => {
  it('sorts, filters and loads more rows in the markets table, keyboard only', async () => {
    const page = await browser.newPage()
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text())
    })
    await page.goto(`${base}/en/markets/`)
    await page
      .locator('astro-island:not([ssr])')
      .first()
      .waitFor({ state: 'attached', timeout: 10_000 })
    const rows = page.locator('.markets-table tbody tr')
    expect(await rows.count()).toBe(25)
    await page.getByRole('button', { name: 'Load more' }).press('Enter')
    expect(await rows.count()).toBe(50)
    await page.getByLabel('Filter assets').fill('bitcoin')
    expect(await rows.first().textContent()).toMatch(/Bitcoin/)
    await page.getByLabel('Filter assets').fill('')
    await page.getByRole('button', { name: /Sort by Asset, ascending/ }).press('Enter')
    expect(await rows.first().textContent()).toMatch(/^0x/)
    await page.getByRole('button', { name: /Sort by Asset, descending/ }).press('Enter')
    expect(await rows.first().textContent()).toMatch(/Zilliqa|zkSync|ZKsync/i)
    expect(errors).toEqual([])
    await page.close()
  })

  it('saves cookie preferences', async () => {
    const page = await browser.newPage()
    await page.goto(`${base}/nl/cookie-settings/`)
    await page
      .locator('astro-island:not([ssr])')
      .first()
      .waitFor({ state: 'attached', timeout: 10_000 })
    const boxes = page.locator('.cookie-settings input[type=checkbox]')
    expect(await boxes.nth(0).isDisabled()).toBe(true)
    await boxes.nth(1).check()
    await page.locator('.cookie-settings button[type=submit]').click()
    await expect.poll(() => page.locator('.cookie-status').textContent()).not.toBe('')
    expect(await page.evaluate(() => localStorage.getItem('cookie-preferences'))).toBe(
      JSON.stringify({ essential: true, analytical: true, marketing: false }),
    )
    await page.close()
  })
})
