// Renders the Open Graph card (brand/og-card.svg) to public/og-card.png with the system Chromium:
//   node apps/site/scripts/ogCard.ts
// Social networks take PNG, not SVG; the PNG is committed, this script remakes it after an edit.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { chromiumArgs, ensureChromium } from '../../../scripts/lib/chromium.ts'
import { ogCard } from '../src/lib/seo.ts'

if (import.meta.main) {
  const siteRoot = join(import.meta.dirname, '..')
  const svg = readFileSync(join(siteRoot, 'brand', 'og-card.svg'), 'utf8')
  const browser = await chromium.launch({ executablePath: ensureChromium(), args: chromiumArgs })
  try {
    const page = await browser.newPage({ viewport: { width: ogCard.width, height: ogCard.height } })
    await page.setContent(`<body style="margin:0">${svg}</body>`)
    await page.screenshot({ path: join(siteRoot, 'public', ogCard.path.slice(1)) })
  } finally {
    await browser.close()
  }
  console.log(`public${ogCard.path} written`)
}
