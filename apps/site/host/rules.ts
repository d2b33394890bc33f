// The host's rules, one definition for every host: the local server that `npm start` uses, the
// nginx snippet (host/nginx.conf, generated from this file) and the browser (the 404 page applies
// the same redirect table). Paths follow spec §2: /{lang}/… with a trailing slash.

import { locales } from '@polder/i18n/locales'
import table from './redirects.json' with { type: 'json' }

export type Redirect = { from: string; to: string; status: 301 | 302 }

/** The redirect table with {lang} expanded for every language. */
export function redirects(): Redirect[] {
  return (table as Redirect[]).flatMap((rule) =>
    rule.from.includes('{lang}')
      ? locales.map((lang) => ({
          ...rule,
          from: rule.from.replaceAll('{lang}', lang),
          to: rule.to.replaceAll('{lang}', lang),
        }))
      : [rule],
  )
}

/**
 * Response headers of every page. The CSP header carries only what a meta tag cannot
 * (frame-ancestors) plus defaults that do not touch scripts; each page's meta CSP lists the
 * hashes of its own scripts and styles, so neither needs 'unsafe-inline'.
 */
export const securityHeaders: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "frame-ancestors 'none'; object-src 'none'; base-uri 'self'; form-action 'self'",
  'Strict-Transport-Security': 'max-age=63072000; includeSubDomains; preload',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
  'Cross-Origin-Opener-Policy': 'same-origin',
}

const languagePrefix = new RegExp(`^/(${locales.join('|')})(/|$)`)

/** The page of a server error, for every path. */
export const serverErrorPage = '/500.html'

/**
 * The one host rule: a miss under /{lang}/ is answered with status 404 and that language's 404
 * page (/{lang}/404.html, spec §2), anything else with /404.html.
 */
export function notFoundPage(path: string): string {
  const match = languagePrefix.exec(path)
  return match === null ? '/404.html' : `/${match[1]}/404.html`
}

/** Paths end with a slash except the root and files ending in .html, .xml, .pdf (and assets). */
export function needsTrailingSlash(path: string): boolean {
  if (path === '/' || path.endsWith('/')) return false
  const last = path.slice(path.lastIndexOf('/') + 1)
  return !last.includes('.')
}

/** The nginx server-block snippet for the same rules. */
export function nginxConfig(): string {
  const lines = [
    '# Generated from apps/site/host/rules.ts by `node apps/site/host/nginx.ts`; do not edit.',
    '# Include inside the server block that serves apps/site/dist as its root.',
    'index index.html;',
    ...Object.entries(securityHeaders).map(
      ([name, value]) => `add_header ${name} "${value}" always;`,
    ),
    '',
    '# Redirect table (host/redirects.json)',
    ...redirects().map((rule) => `location = ${rule.from} { return ${rule.status} ${rule.to}; }`),
    '',
    '# Paths without a trailing slash (and without a file extension) get one.',
    'rewrite ^(.*/[^/.]+)$ $1/ permanent;',
    '',
    "# Misses answer 404 with the language's own 404 page under /{lang}/, the root 404.html",
    '# elsewhere; server errors answer with /500.html. No try_files falls back to a page: that',
    '# would answer a miss with 200. A location that sets error_page inherits none from the',
    '# server, so each language location repeats the 500 rule.',
    ...locales.map(
      (lang) =>
        `location /${lang}/ { try_files $uri $uri/ =404; error_page 404 ${notFoundPage(`/${lang}/`)}; error_page 500 502 503 504 ${serverErrorPage}; }`,
    ),
    `error_page 404 ${notFoundPage('/')};`,
    `error_page 500 502 503 504 ${serverErrorPage};`,
    '',
  ]
  return lines.join('\n')
}
