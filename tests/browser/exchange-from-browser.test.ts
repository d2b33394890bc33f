// A real browser (Debian's Chromium through playwright-core) talking to the real exchange
// server: the page loads over HTTP and speaks the v2 WebSocket protocol from inside Chromium.
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultConfig } from '../../apps/exchange/src/config.ts'
import { createExchangeServer, type ExchangeServer } from '../../apps/exchange/src/server.ts'
import { testListing } from '../../apps/exchange/test/fixtures/testListing.ts'
import { chromiumArgs, ensureChromium } from '../../scripts/lib/chromium.ts'

let browser: Browser
let server: ExchangeServer
let baseUrl: string

beforeAll(async () => {
  const executablePath = ensureChromium() // throws a ChromiumMissingError that says what to do
  server = await createExchangeServer(
    {
      ...defaultConfig,
      port: 0,
      logLevel: 'silent',
      dataDir: undefined,
    },
    testListing,
  )
  baseUrl = await server.listen()
  browser = await chromium.launch({ executablePath, args: chromiumArgs })
})

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe('the exchange server from a browser', () => {
  it('serves its health page to Chromium', async () => {
    const page = await browser.newPage()
    const response = await page.goto(`${baseUrl}/health`)
    expect(response?.status()).toBe(200)
    expect(JSON.parse((await page.textContent('body')) ?? '')).toMatchObject({ status: 'ok' })
    await page.close()
  })

  it('answers getTime over the WebSocket opened by the page, echoing requestId', async () => {
    const page = await browser.newPage()
    await page.goto(`${baseUrl}/health`)
    const reply = await page.evaluate(
      async (wsUrl) => {
        const socket = new WebSocket(wsUrl)
        return await new Promise<string>((resolve, reject) => {
          socket.onopen = () => socket.send(JSON.stringify({ action: 'getTime', requestId: 42 }))
          socket.onmessage = (event) => resolve(String(event.data))
          socket.onerror = () => reject(new Error('websocket error'))
        })
      },
      `${baseUrl.replace('http', 'ws')}/v2/`,
    )
    const message = JSON.parse(reply)
    expect(message).toMatchObject({ action: 'getTime', requestId: 42 })
    expect(Number.isInteger(message.response.time)).toBe(true)
    await page.close()
  })
})
