// sitemap.xml: every indexable page of every language with its hreflang alternates.

import { getCollection } from 'astro:content'
import type { APIRoute } from 'astro'
import { isIndexable, pageKeys, routesFor } from '../lib/routes.ts'
import { absolute, alternatesOf } from '../lib/seo.ts'

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;')
}

export const GET: APIRoute = async ({ site }) => {
  const siteUrl = String(site ?? 'https://polder.example').replace(/\/$/, '')
  const slugs = [
    ...new Set((await getCollection('blog')).map((entry) => entry.id.split('/')[1] ?? '')),
  ].sort()
  const urls = routesFor(pageKeys(slugs))
    .filter((route) => isIndexable(route.key))
    .map((route) => {
      const links = alternatesOf(route, siteUrl)
        .map(
          (link) =>
            `<xhtml:link rel="alternate" hreflang="${link.hreflang}" href="${xml(link.href)}"/>`,
        )
        .join('')
      return `<url><loc>${xml(absolute(siteUrl, route.path))}</loc>${links}</url>`
    })
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n<url><loc>${xml(siteUrl)}/</loc></url>\n${urls.join('\n')}\n</urlset>\n`
  return new Response(body, { headers: { 'Content-Type': 'application/xml' } })
}
