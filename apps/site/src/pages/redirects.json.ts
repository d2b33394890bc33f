// The redirect table for the browser: the 404 pages apply it too (spec §2: "a redirect table is
// checked first"), so a moved path still lands on a host that lacks the server-side rules.
import type { APIRoute } from 'astro'
import { redirects } from '../../host/rules.ts'

export const GET: APIRoute = () =>
  new Response(
    JSON.stringify(Object.fromEntries(redirects().map((rule) => [rule.from, rule.to]))),
    {
      headers: { 'Content-Type': 'application/json' },
    },
  )
