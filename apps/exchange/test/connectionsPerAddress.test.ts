// Connections per address, whatever they carry: one address may hold 100 more than its most
// WebSockets (plain HTTP keep-alive sockets, sockets still sending their headers); the next is
// answered 429 in words and closed. Behind a trusted proxy every client shares its address, so
// there the proxy holds the connections and none is counted. Raw TCP sockets on a real server.
import { connect, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { connectionsPerIpBeyondWs, type ExchangeServer } from '../src/server.ts'
import { startTestServer } from './fixtures/testServer.ts'

const wsMax = 2
let server: ExchangeServer | undefined
const sockets: Socket[] = []
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy()
  await server?.close()
})

/** Opens a TCP connection to the server; resolves once connected. */
function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket))
    socket.once('error', reject)
    sockets.push(socket)
  })
}

/** What the server sends on the socket until it closes it (at most 5 s). */
function untilClosed(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    const timer = setTimeout(() => reject(new Error('the server kept the socket open')), 5_000)
    socket.on('data', (chunk) => {
      text += chunk.toString()
    })
    socket.once('close', () => {
      clearTimeout(timer)
      resolve(text)
    })
  })
}

async function timeOn(socket: Socket): Promise<string> {
  const answer = untilClosed(socket)
  socket.write('GET /v2/time HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')
  return answer
}

describe('connections per address', () => {
  it('are at most 100 beyond the WebSockets: the next is answered 429 in words, and one closed makes room', async () => {
    const started = await startTestServer({ wsConnectionsPerIpMax: wsMax })
    server = started.server
    const port = Number(new URL(started.baseUrl).port)
    const held: Socket[] = []
    for (let index = 0; index < wsMax + connectionsPerIpBeyondWs; index += 1)
      held.push(await open(port))
    const refused = await untilClosed(await open(port))
    expect(refused).toMatch(/^HTTP\/1\.1 429 Too Many Requests\r\n/)
    expect(JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4))).toEqual({
      error: `This address already holds ${wsMax + connectionsPerIpBeyondWs} open connections, the most one may: close one first.`,
    })
    // A held one still works, and once it has closed another may open.
    expect(await timeOn(held[0]!)).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
    await expect
      .poll(async () => (await timeOn(await open(port))).slice(0, 15))
      .toBe('HTTP/1.1 200 OK')
  })

  it('are not counted behind a trusted proxy, whose clients all come from its address', async () => {
    const started = await startTestServer({ wsConnectionsPerIpMax: wsMax, trustProxy: 'loopback' })
    server = started.server
    const port = Number(new URL(started.baseUrl).port)
    for (let index = 0; index < wsMax + connectionsPerIpBeyondWs; index += 1) await open(port)
    expect(await timeOn(await open(port))).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
  })
})
