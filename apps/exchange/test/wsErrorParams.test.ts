// The WebSocket's errors name the parameter at fault: a subscribe's bad channel names what is
// wrong inside it (protocol §5: 203/205 say "<param> parameter is required." / "... is invalid."),
// not `channels`; and a REST-only action sent over the WebSocket is an unknown action (415) for
// every socket, not a private call refused (300) to one that has not authenticated.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExchangeServer } from '../src/server.ts'
import { openRecordingSocket, type RecordingSocket } from './fixtures/recordingSocket.ts'
import { startTestServer } from './fixtures/testServer.ts'

let server: ExchangeServer
let baseUrl: string
let socket: RecordingSocket

beforeAll(async () => {
  ;({ server, baseUrl } = await startTestServer())
  socket = await openRecordingSocket(`${baseUrl.replace('http', 'ws')}/v2`)
})
afterAll(async () => {
  socket.ws.close()
  await server.close()
})

async function reply(request: object) {
  const answer = socket.next(
    (message) => message.requestId === (request as { requestId: number }).requestId,
  )
  socket.ws.send(JSON.stringify(request))
  return answer
}

describe('subscribe with a bad channel names the parameter at fault', () => {
  it('a candles channel without interval: "interval parameter is required."', async () => {
    const answer = await reply({
      action: 'subscribe',
      requestId: 1,
      channels: [{ name: 'candles', markets: ['BTC-EUR'] }],
    })
    expect(answer).toMatchObject({ errorCode: 203, error: 'interval parameter is required.' })
  })

  it('a book channel without markets: "markets parameter is required."', async () => {
    const answer = await reply({ action: 'subscribe', requestId: 2, channels: [{ name: 'book' }] })
    expect(answer).toMatchObject({ errorCode: 203, error: 'markets parameter is required.' })
  })

  it('a malformed market id is refused as an unknown one is: "market parameter is invalid."', async () => {
    const unknown = await reply({
      action: 'subscribe',
      requestId: 3,
      channels: [{ name: 'book', markets: ['XX-EUR'] }],
    })
    expect(unknown).toMatchObject({ errorCode: 205, error: 'market parameter is invalid.' })
    const malformed = await reply({
      action: 'subscribe',
      requestId: 4,
      channels: [{ name: 'book', markets: ['btc-eur'] }],
    })
    expect(malformed).toMatchObject({ errorCode: 205, error: 'market parameter is invalid.' })
  })

  it('an unknown candle interval: "interval parameter is invalid."', async () => {
    const answer = await reply({
      action: 'subscribe',
      requestId: 5,
      channels: [{ name: 'candles', interval: ['7m'], markets: ['BTC-EUR'] }],
    })
    expect(answer).toMatchObject({ errorCode: 205, error: 'interval parameter is invalid.' })
  })
})

describe('an action that is not a WebSocket action (protocol §6.2)', () => {
  it('is answered 415 on a socket that has not authenticated, as any unknown action is', async () => {
    // privateCancelOrdersAfter is REST-only (README: "Cancel-on-disconnect has a REST endpoint only").
    const answer = await reply({
      action: 'privateCancelOrdersAfter',
      requestId: 6,
      codGroupId: 1,
      expiryAfterSeconds: 10,
    })
    expect(answer).toMatchObject({ errorCode: 415, error: 'Unknown WebSocket action.' })
  })
})
