// Broadcasts are framed once by the exchange itself (frameText) and written to each socket as
// they are: a real ws client must read them exactly as the text that went in, at every length
// encoding of RFC 6455 (7-bit, 16-bit and 64-bit), and in order with ws's own frames.
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket, WebSocketServer } from 'ws'
import { frameText } from '../src/api/wsConnection.ts'

describe('frameText', () => {
  let server: WebSocketServer
  let url: string
  beforeAll(async () => {
    server = new WebSocketServer({ port: 0, host: '127.0.0.1' })
    await new Promise((resolve) => server.once('listening', resolve))
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve))
  })

  it('is read back as the same text at every payload length encoding, in order with ws frames', async () => {
    // Multi-byte characters, so that byte length and string length differ at each boundary.
    const texts = [0, 1, 124, 125, 126, 127, 65_535, 65_536, 70_001].map((bytes) =>
      bytes === 0 ? '' : `€${'x'.repeat(Math.max(0, bytes - 3))}`,
    )
    server.once('connection', (socket) => {
      const raw = (socket as unknown as { _socket: Duplex })._socket
      for (const text of texts) raw.write(frameText(text))
      socket.send('sent by ws')
    })
    const client = new WebSocket(url)
    const received: string[] = []
    await new Promise<void>((resolve, reject) => {
      client.on('message', (data, isBinary) => {
        expect(isBinary).toBe(false)
        received.push(String(data))
        if (received.length === texts.length + 1) resolve()
      })
      client.on('error', reject)
    })
    client.close()
    expect(received.map((text) => Buffer.byteLength(text))).toEqual(
      [...texts, 'sent by ws'].map((text) => Buffer.byteLength(text)),
    )
    expect(received).toEqual([...texts, 'sent by ws'])
  })
})
