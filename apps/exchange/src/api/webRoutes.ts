// The spec's own web API beside the v2 protocol (spec §7): the market list the site and the
// trading app poll, the chart candles, and the asset icons those lists point to.
import { assetBySymbol } from '@polder/catalogue'
import { formatAmount, formatPrice, type MarketSpec } from '@polder/engine'
import { marketsDataRequest, priceCandlesRequest, safeParse } from '@polder/protocol'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ExchangeService } from '../core/exchangeService.ts'
import { type CandleArchive, readCandles } from '../storage/candleArchive.ts'
import type { Listing } from './exchangeActions.ts'
import { queryParameters } from './queryParameters.ts'
import { candleToWire, quoteVolumeToWire } from './wireFormat.ts'

export type WebDeps = {
  service: ExchangeService
  listing: Listing
  nowMs: () => number
  /** Closed candles older than the core keeps. */
  candleArchive: CandleArchive
  /** Where links the server hands out point (config.publicUrl); else the address reached. */
  publicUrl: string | undefined
}

/**
 * The base of the links in a response: the configured public URL, else the address and port the
 * request reached. Never the Host header: the client chooses it, and a cache in front of the
 * server could hand one client's links to every other.
 */
export function linkBase(request: FastifyRequest, publicUrl: string | undefined): string {
  if (publicUrl !== undefined) return publicUrl
  const socket = request.socket as FastifyRequest['socket'] | undefined
  const address = (socket?.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '')
  // An IPv6 address in brackets, without its zone (fe80::1%eth0): URLs cannot carry one.
  const host = address.includes(':') ? `[${address.replace(/%.*$/, '')}]` : address
  const port = socket?.localPort
  return `${request.protocol}://${host}${port === undefined ? '' : `:${port}`}`
}

const miniChartInterval = '30m' as const
const dayMs = 86_400_000

/**
 * Percent change with two decimals, rounded half away from zero, from integer prices (`open`
 * above zero): in integers, so that a fall of half a basis point keeps its sign ("-0.01"), as a
 * rise of one does.
 */
export function percentChange(open: number, last: number): string {
  const change = BigInt(last) - BigInt(open)
  const size = change < 0n ? -change : change
  // Basis points of the change's size, rounded half up: ⌊(size × 10,000 + open / 2) / open⌋.
  const magnitude = Number((size * 20_000n + BigInt(open)) / (2n * BigInt(open)))
  const sign = change < 0n && magnitude > 0 ? '-' : ''
  return `${sign}${Math.floor(magnitude / 100)}.${String(magnitude % 100).padStart(2, '0')}`
}

/**
 * A monogram icon per asset and theme, drawn here: no third-party icon set is copied, so there
 * is no licence to carry. The colour is derived from the symbol, stable across restarts.
 */
export function monogramSvg(symbol: string, theme: 'light' | 'dark'): string {
  let hash = 0
  for (const char of symbol) hash = (hash * 31 + char.charCodeAt(0)) >>> 0
  const hue = hash % 360
  const background = theme === 'dark' ? `hsl(${hue} 45% 30%)` : `hsl(${hue} 60% 88%)`
  const foreground = theme === 'dark' ? '#ffffff' : `hsl(${hue} 60% 22%)`
  const text = symbol.slice(0, 4).replace(/[^A-Z0-9]/gi, '')
  const size = text.length <= 3 ? 13 : 10
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" role="img" aria-label="${text}"><circle cx="16" cy="16" r="16" fill="${background}"/><text x="16" y="16" dominant-baseline="central" text-anchor="middle" font-family="system-ui,sans-serif" font-weight="700" font-size="${size}" fill="${foreground}">${text}</text></svg>`
}

export function registerWebRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { service, listing } = deps
  const engine = service.core.engine
  const fail = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).send(body)

  app.get('/exchange/icons/:file', async (request, reply) => {
    const match = /^([A-Z0-9]{1,16})-(light|dark)\.svg$/.exec(
      (request.params as { file: string }).file,
    )
    if (!match || !assetBySymbol(match[1]!)) return fail(reply, 404, { error: 'no such icon' })
    reply.header('content-type', 'image/svg+xml').header('cache-control', 'public, max-age=86400')
    return monogramSvg(match[1]!, match[2] as 'light' | 'dark')
  })

  app.get('/exchange/proxy/v3/markets/data', async (request, reply) => {
    const parsed = safeParse(marketsDataRequest, queryParameters(request), { location: 'query' })
    if (!parsed.success) return fail(reply, parsed.error.status, parsed.error.body)
    const { markets, assets, theme = 'light', miniChart } = parsed.data
    const nowMs = service.core.stats.windowEndMs(deps.nowMs())
    const origin = linkBase(request, deps.publicUrl)
    const items = listing.markets
      .map((config) => engine.market(config.market))
      .filter((spec): spec is MarketSpec => spec !== null)
      .filter((spec) => !markets || markets.includes(spec.market))
      .filter((spec) => !assets || assets.includes(spec.base))
      .map((spec) => {
        const stats = service.core.stats.stats24h(spec.market, nowMs)
        const base = assetBySymbol(spec.base)
        const quote = assetBySymbol(spec.quote)
        const item: Record<string, unknown> = {
          market: spec.market,
          base: {
            symbol: spec.base,
            name: base?.name ?? spec.base,
            slug: base?.slug ?? spec.base.toLowerCase(),
          },
          quote: {
            symbol: spec.quote,
            name: quote?.name ?? spec.quote,
            slug: quote?.slug ?? spec.quote.toLowerCase(),
          },
          lastPrice: stats.last ? formatPrice(spec, stats.last) : null,
          change24h: stats.open && stats.last ? percentChange(stats.open, stats.last) : null,
          volume24h: formatAmount(spec, stats.volume),
          volumeQuote24h: quoteVolumeToWire(spec, stats.volumeQuote),
          theme: { icon: `${origin}/exchange/icons/${spec.base}-${theme}.svg` },
        }
        if (miniChart) {
          item.miniChart = service.core.stats
            .candles(spec.market, miniChartInterval, nowMs - dayMs, nowMs, 48)
            .reverse()
            .map((candle) => ({
              timestamp: candle.timestamp,
              price: formatPrice(spec, candle.close),
            }))
        }
        return item
      })
    return items
  })

  app.get('/exchange/xp/v1/markets/price/candles', async (request, reply) => {
    const parsed = safeParse(priceCandlesRequest, queryParameters(request), { location: 'query' })
    if (!parsed.success) return fail(reply, parsed.error.status, parsed.error.body)
    const spec = engine.market(parsed.data.market)
    if (spec === null)
      return fail(reply, 400, { errorCode: 205, error: 'market parameter is invalid.' })
    const candles = await readCandles(
      service.core.stats,
      deps.candleArchive,
      spec.market,
      parsed.data.interval,
      Number(parsed.data.start),
      deps.nowMs(),
      1440,
    )
    return candles.map((candle) => candleToWire(spec, candle))
  })
}
