import { afterEach, describe, expect, test, vi } from 'vitest'
import {
  createLivePriceFeed,
  createSiteExchangeClient,
  type LivePriceFeed,
  livePriceRetryDelayMs,
  RequestTimeoutError,
  type WebSocketConstructor,
} from '../src/index.ts'
import { waitUntil } from './support/waitUntil.ts'
import { fakeFetch, hangingResponse, json, marketsDataItem } from './support/webFixtures.ts'
import { startWsServer, type TestWsServer } from './support/wsServer.ts'

// Spec §3, §4, §7 (part 12): the public site's live price feed and exchange client.

let server: TestWsServer | undefined
let feed: LivePriceFeed | undefined

afterEach(async () => {
  feed?.stop()
  feed = undefined
  vi.useRealTimers()
  await server?.close()
  server = undefined
})

/** The real WebSocket, counting how many sockets the feed opens. */
function countingWebSocket(): { WebSocket: WebSocketConstructor; opened: () => number } {
  let count = 0
  const Real = globalThis.WebSocket
  class Counting extends Real {
    constructor(url: string) {
      super(url)
      count += 1
    }
  }
  return { WebSocket: Counting as unknown as WebSocketConstructor, opened: () => count }
}

const fakeTimers = () =>
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })

describe('spec §4 live price feed', () => {
  test('price updates fill the map keyed by symbol', async () => {
    server = await startWsServer()
    feed = createLivePriceFeed({ url: server.url, subscribeMessage: { action: 'prices' } })
    feed.start()
    await waitUntil(() => expect(feed!.store.getState().status).toBe('open'))
    await server.waitFor((message) => message.action === 'prices')
    server.send({ event: 'update', data: { BTC: ['30000', '1.5'] } })
    server.send({ event: 'mobileUpdate', data: { ETH: ['2000'] } })
    await waitUntil(() =>
      expect(feed!.store.getState().prices).toEqual({ BTC: ['30000', '1.5'], ETH: ['2000'] }),
    )
  })

  test('it reconnects: first retry after 1 s, delay times 5, at most 3 retries', async () => {
    fakeTimers()
    server = await startWsServer()
    const { WebSocket, opened } = countingWebSocket()
    feed = createLivePriceFeed({ url: server.url, WebSocket })
    feed.start()
    await waitUntil(() => expect(feed!.store.getState().status).toBe('open'))
    await server.close() // every later attempt is refused
    server = undefined
    const read = () => feed!.store.getState()
    await waitUntil(() => expect(read()).toMatchObject({ status: 'reconnecting', retries: 1 }))
    for (const [retry, delayMs] of [
      [1, 1000],
      [2, 5000],
      [3, 25_000],
    ] as const) {
      vi.advanceTimersByTime(delayMs - 1)
      expect(opened(), `before retry ${retry}`).toBe(retry)
      vi.advanceTimersByTime(1)
      expect(opened(), `retry ${retry}`).toBe(retry + 1)
      if (retry < 3) {
        await waitUntil(() => expect(read()).toMatchObject({ retries: retry + 1 }))
      }
    }
    await waitUntil(() => expect(read().status).toBe('failed'))
    vi.advanceTimersByTime(120_000)
    expect(opened()).toBe(4)
  })

  test('the retry delay is capped at 30 s', () => {
    expect([0, 1, 2, 3, 4].map(livePriceRetryDelayMs)).toEqual([1000, 5000, 25_000, 30_000, 30_000])
  })

  test('an open socket resets the retry count', async () => {
    fakeTimers()
    server = await startWsServer()
    feed = createLivePriceFeed({ url: server.url })
    feed.start()
    await waitUntil(() => expect(feed!.store.getState().status).toBe('open'))
    server.dropLatest()
    await waitUntil(() => expect(feed!.store.getState()).toMatchObject({ retries: 1 }))
    vi.advanceTimersByTime(1000)
    await waitUntil(() =>
      expect(feed!.store.getState()).toMatchObject({ status: 'open', retries: 0 }),
    )
    expect(server.connections).toHaveLength(2)
  })
})

describe('spec §3, §7 site exchange client', () => {
  test('the market list is requested with mini chart and light theme and reduced to base, miniChart, icon', async () => {
    const fetch = fakeFetch(() => json([marketsDataItem]))
    const site = createSiteExchangeClient({ baseUrl: 'https://polder.example', fetch })
    expect(await site.getMarketList()).toEqual([
      {
        base: 'BTC',
        miniChart: marketsDataItem.miniChart,
        icon: 'https://polder.example/icons/btc-light.svg',
      },
    ])
    expect(fetch.calls[0]?.url).toBe(
      'https://polder.example/exchange/proxy/v3/markets/data?theme=light&miniChart=true',
    )
  })

  test('the site client API timeout is 6000 ms', async () => {
    vi.useFakeTimers()
    const fetch = fakeFetch((_url, init) => hangingResponse(init))
    const site = createSiteExchangeClient({
      baseUrl: 'https://polder.example',
      fetch,
      retry: { retries: 0 },
    })
    let outcome: unknown
    const pending = site.getMarketList().catch((error: unknown) => {
      outcome = error
    })
    await vi.advanceTimersByTimeAsync(5999)
    expect(outcome).toBeUndefined()
    await vi.advanceTimersByTimeAsync(1)
    await pending
    expect(outcome).toBeInstanceOf(RequestTimeoutError)
  })
})
