// The built site as a whole: every expected route exists in every language, no internal link is
// broken, hreflang sets are reciprocal, titles and descriptions are unique, content pages ship no
// JavaScript, build-time prices say when they were taken. The expected routes are listed here
// from the catalogue and the spec, independently of the site's own route table.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { expectedPagePaths } from './expectedPages.ts'

const contentDir = join(import.meta.dirname, '..', 'content')

import './provided.ts'
import { languages } from './specTables.ts'

function expectedPaths(): string[] {
  const paths = ['/', '/404.html', '/500.html', '/sitemap.xml', '/robots.txt']
  for (const lang of languages) paths.push(...expectedPagePaths(lang), `/${lang}/404.html`)
  return paths
}

function fileOf(dir: string, path: string): string {
  return join(dir, path.endsWith('/') ? `${path}index.html` : path)
}

function htmlFiles(dir: string, base = ''): string[] {
  const found: string[] = []
  for (const name of readdirSync(join(dir, base))) {
    const relative = `${base}/${name}`
    if (statSync(join(dir, relative)).isDirectory()) found.push(...htmlFiles(dir, relative))
    else if (name.endsWith('.html')) found.push(relative)
  }
  return found
}

function pathOfFile(file: string): string {
  return file.endsWith('/index.html') ? file.slice(0, -'index.html'.length) : file
}

let dir: string
let pages: Map<string, string>

beforeAll(() => {
  dir = inject('siteDir')
  pages = new Map(
    htmlFiles(dir).map((file) => [pathOfFile(file), readFileSync(join(dir, file), 'utf8')]),
  )
})

describe('the built site', () => {
  it('has every expected route in every language', () => {
    const missing = expectedPaths().filter((path) => !existsSync(fileOf(dir, path)))
    expect(missing).toEqual([])
    console.log(
      `site: ${pages.size} HTML pages, built in ${inject('siteBuildSeconds').toFixed(1)} s (with the market snapshot)`,
    )
  })

  it('has no broken internal link or asset reference', () => {
    const broken: string[] = []
    for (const [path, html] of pages)
      for (const match of html.matchAll(/\s(?:href|src)="(\/[^"#?]*)[^"]*"/g)) {
        const target = match[1]!
        if (target.startsWith('//')) continue
        if (!existsSync(fileOf(dir, target))) broken.push(`${path} → ${target}`)
      }
    expect(broken.slice(0, 20)).toEqual([])
  })

  it('gives every page <html lang>, a title, a description and, where indexable, a canonical', () => {
    for (const [path, html] of pages) {
      const lang = /^\/(de|en|es|fr|it|nl)\//.exec(path)?.[1] ?? 'en'
      expect(html, path).toContain(`<html lang="${lang}"`)
      expect(html, path).toMatch(/<title>[^<]{5,}<\/title>/)
      expect(html, path).toMatch(/<meta name="description" content="[^"]{20,}"/)
      expect((html.match(/<h1[\s>]/g) ?? []).length, path).toBe(1)
    }
  })

  it('gives every page Open Graph tags: an absolute image that exists, a URL only where there is one', () => {
    const problems: string[] = []
    for (const [path, html] of pages) {
      const image = /<meta property="og:image" content="([^"]+)"/.exec(html)?.[1]
      if (image === undefined || !/^https?:\/\//.test(image))
        problems.push(`${path}: og:image ${image}`)
      else if (!existsSync(fileOf(dir, new URL(image).pathname)))
        problems.push(`${path}: ${image} is not in the build`)
      if (/<meta property="og:url" content=""/.test(html)) problems.push(`${path}: empty og:url`)
    }
    expect(problems.slice(0, 10)).toEqual([])
    for (const root of ['/404.html', '/500.html']) expect(pages.get(root)).not.toContain('og:url')
    expect(pages.get('/en/markets/')).toContain('<meta property="og:url" content="http')
  })

  it('dates every blog post as an article, with the date of its front matter', () => {
    let posts = 0
    for (const lang of languages)
      for (const file of readdirSync(join(contentDir, 'blog', lang))) {
        const date = /^date:\s*(\S+)/m.exec(
          readFileSync(join(contentDir, 'blog', lang, file), 'utf8'),
        )
        const html = pages.get(`/${lang}/blog/${file.replace(/\.md$/, '')}/`) ?? ''
        expect(html, file).toContain('<meta property="og:type" content="article"')
        expect(html, file).toContain(
          `<meta property="article:published_time" content="${date?.[1]}"`,
        )
        posts += 1
      }
    expect(posts).toBeGreaterThanOrEqual(24 * 6)
    expect(pages.get('/en/terms/')).not.toContain('article:published_time')
  })

  it('has a unique title and a unique description per page within each language', () => {
    // Pages outside the languages (/, /404.html, /500.html) form their own group. The one file
    // left out is /{lang}/404.html: a copy of /{lang}/404/, the same page under the spec's name.
    const duplicates: string[] = []
    for (const [field, pattern] of [
      ['title', /<title>([^<]*)<\/title>/],
      ['description', /<meta name="description" content="([^"]*)"/],
    ] as const) {
      const seen = new Map<string, string>()
      for (const [path, html] of pages) {
        if (/^\/\w\w\/404\.html$/.test(path)) continue
        const group = /^\/(de|en|es|fr|it|nl)\//.exec(path)?.[1] ?? 'root'
        const key = `${group} ${pattern.exec(html)?.[1] ?? ''}`
        const other = seen.get(key)
        if (other !== undefined) duplicates.push(`${field} ${key}: ${other} and ${path}`)
        seen.set(key, path)
      }
    }
    expect(duplicates.slice(0, 10)).toEqual([])
  })

  it('links every page to all six languages and x-default, and every set is reciprocal', () => {
    const alternates = (html: string): string[] =>
      [...html.matchAll(/<link rel="alternate" hreflang="([^"]+)" href="([^"]+)"/g)]
        .map((m) => `${m[1]} ${new URL(m[2]!).pathname}`)
        .sort()
    let checked = 0
    for (const [path, html] of pages) {
      const own = alternates(html)
      if (own.length === 0) continue
      expect(own.filter((entry) => !entry.startsWith('x-default')).length, path).toBe(6)
      expect(
        own.some((entry) => entry.startsWith('x-default')),
        path,
      ).toBe(true)
      expect(
        own.some((entry) => entry.endsWith(` ${path}`)),
        `${path} lists itself`,
      ).toBe(true)
      for (const entry of own) {
        const target = entry.split(' ')[1]!
        const targetHtml = pages.get(target)
        expect(targetHtml, `${path} → ${target}`).toBeDefined()
        expect(alternates(targetHtml!), `${target} lists the same set as ${path}`).toEqual(own)
      }
      checked += 1
    }
    expect(checked).toBeGreaterThan(4000)
  })

  it('ships no JavaScript on content pages: only the islands and the 404 pages’ redirect check', () => {
    const withScript = [...pages]
      .filter(([, html]) => /<script(?![^>]*application\/ld\+json)/.test(html))
      .map(([path]) => path.replace(/^\/\w\w\//, '/{lang}/'))
    expect([...new Set(withScript)].sort()).toEqual([
      '/404.html',
      '/{lang}/404.html',
      '/{lang}/404/',
      '/{lang}/cookie-settings/',
      '/{lang}/markets/',
    ])
    expect(pages.get('/en/markets/')).toContain('client="visible"')
  })

  it('has no doubled full stop in any text a reader sees', () => {
    const doubled = /(?<!\.)\.\.(?!\.)/
    const found: string[] = []
    for (const [path, html] of pages) {
      const body = html.replace(/<(script|style)\b[\s\S]*?<\/\1>/g, '')
      for (const match of body.matchAll(/>([^<]+)</g))
        if (doubled.test(match[1]!)) found.push(`${path}: ${match[1]!.trim().slice(0, 80)}`)
      const title = /<title>([^<]*)<\/title>/.exec(html)?.[1] ?? ''
      if (doubled.test(title)) found.push(`${path} <title>: ${title}`)
    }
    expect(found.slice(0, 10)).toEqual([])
  })

  it('never repeats a section’s heading as its table’s caption', () => {
    const repeated: string[] = []
    for (const [path, html] of pages)
      for (const section of html.matchAll(/<section\b[\s\S]*?<\/section>/g)) {
        const heading = /<h2[^>]*>([^<]*)<\/h2>/.exec(section[0])?.[1]
        const caption = /<caption>([^<]*)<\/caption>/.exec(section[0])?.[1]
        if (heading !== undefined && heading === caption) repeated.push(`${path}: ${heading}`)
      }
    expect(repeated.slice(0, 10)).toEqual([])
  })

  it('writes a sitemap with hreflang alternates and a robots.txt pointing at it', () => {
    const sitemap = readFileSync(join(dir, 'sitemap.xml'), 'utf8')
    expect(sitemap).toContain('/nl/bitcoin/koers/</loc>')
    expect(sitemap).toContain('hreflang="x-default"')
    expect(readFileSync(join(dir, 'robots.txt'), 'utf8')).toMatch(/Sitemap: .*\/sitemap\.xml/)
  })

  it('labels every build-time price with the time it was taken', () => {
    // Blocks that show prices: price figures, the markets table, the top-5 table, asset lists.
    const priceMarkers = /class="(?:price|asset-price|markets-table)"|custom-top5MarketsTable/
    const unlabelled = [...pages]
      .filter(([, html]) => priceMarkers.test(html) && !html.includes('class="as-of"'))
      .map(([path]) => path)
    expect(unlabelled.slice(0, 10)).toEqual([])
    for (const lang of languages)
      for (const path of [`/${lang}/`, `/${lang}/markets/`])
        expect(pages.get(path), path).toMatch(/<p class="as-of">[^<]*\d{4}/)
  })

  it('shows prices taken from the exchange, labelled with the time they were taken', () => {
    const page = pages.get('/en/bitcoin/price/')!
    expect(page).toMatch(/Prices as of/)
    expect(pages.get('/en/markets/')).toMatch(/Prices as of/)
    expect(page).toMatch(/<svg[^>]*role="img"[^>]*aria-label="Price chart of Bitcoin/)
    expect(pages.get('/nl/bitcoin/koers/')).toMatch(/€\s?[\d.]+,\d\d/)
  })
})
