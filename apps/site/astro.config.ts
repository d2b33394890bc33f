import { copyFileSync } from 'node:fs'
import react from '@astrojs/react'
import { locales } from '@polder/i18n/locales'
import type { AstroIntegration } from 'astro'
import { defineConfig } from 'astro/config'

/**
 * The spec lists a 404.html per language: each language's 404 page (built at /{lang}/404/) is also
 * written as /{lang}/404.html, the file the host rules answer a miss under /{lang}/ with.
 */
const languageNotFoundFiles: AstroIntegration = {
  name: 'polder-language-404-html',
  hooks: {
    'astro:build:done': ({ dir }) => {
      for (const lang of locales)
        copyFileSync(new URL(`${lang}/404/index.html`, dir), new URL(`${lang}/404.html`, dir))
    },
  },
}

// Static output, one directory per page (every path ends with a slash, spec §2). The CSP meta
// tag carries hashes of Astro's own scripts and styles, so no 'unsafe-inline' is needed; the
// host adds the header-only policies (frame-ancestors, HSTS, nosniff): see host/.
export default defineConfig({
  site: process.env.POLDER_SITE_URL ?? 'https://polder.example',
  output: 'static',
  trailingSlash: 'always',
  outDir: process.env.POLDER_SITE_OUT ?? './dist',
  build: { format: 'directory', inlineStylesheets: 'never' },
  integrations: [react(), languageNotFoundFiles],
  // Shiki's inline styles would need 'unsafe-inline'; content has no code blocks to highlight.
  markdown: { syntaxHighlight: false },
  security: {
    csp: {
      directives: [
        "default-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
      ],
    },
  },
  devToolbar: { enabled: false },
  prefetch: false,
})
