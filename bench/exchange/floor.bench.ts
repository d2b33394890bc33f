// What this machine itself adds to the load benchmark's figures, measured without the exchange:
// 1. echo: the load bench's request pattern (open loop, --rate requests/s over --connections
//    WebSocket connections, latency from the planned send time into an HDR histogram) against
//    a WebSocket server in its own process that only answers each message with its requestId.
//    Its p99 is the floor under the exchange's acknowledgement p99 at the same rate.
//    With --work US the server spins US µs on each request before it answers (the exchange's
//    own work on a request, without its way in and out), and with --split too its sockets are
//    a worker thread's: that thread reads and parses the requests, hands each turn's to the main
//    thread in one message, and writes the answers the main thread hands back. What moving the
//    sockets off the exchange's event loop could gain on this machine.
// 2. fan-out: a server process writes one 300-byte WebSocket frame, framed once, to each of
//    --subscribers connections every 100 ms (one write per socket, as the exchange's market
//    data does); the generator reads them on the other core. Prints how long a round of
//    writes takes and the delay from a round's start to each arrival: the floor under the
//    exchange's book fan-out at that many subscribers.
//    With --threads N (N > 1) the server process writes from N threads, each listening on the
//    same port (reusePort: the kernel shares the connections out) and writing to its own: what
//    writing from I/O threads could gain on this machine.
// Loopback only, bounded in time; ends the processes it starts.
//
// Run: npm exec -- node bench/exchange/floor.bench.ts [--rate 5000] [--seconds 10]
//        [--connections 20] [--subscribers 10000] [--rounds 50] [--threads 1] [--only fanout]
//        [--work 0] [--split]
import { type ChildProcess, fork } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { parseArgs } from 'node:util'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import * as hdr from 'hdr-histogram-js'
import { WebSocket, WebSocketServer } from 'ws'
import { frameText } from '../../apps/exchange/src/api/wsConnection.ts'
import { cpuSecondsOf } from './procStat.ts'

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '5000' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '20' },
    subscribers: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '50' },
    threads: { type: 'string', default: '1' },
    work: { type: 'string', default: '0' },
    split: { type: 'boolean', default: false },
    only: { type: 'string' },
    child: { type: 'string' },
  },
})

function histogram(highest: number) {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: highest,
    numberOfSignificantValueDigits: 3,
  })
}

// --- the server processes ---------------------------------------------------------------------
/** The request's own work (--work): the thread spins that long on it. */
function work(): void {
  const until = performance.now() + Number(values.work) / 1000
  while (performance.now() < until);
}

/** An echo's answer to a request. */
function answer(requestId: number): string {
  return JSON.stringify({ action: 'echo', requestId, response: {} })
}

/** A request read by the I/O thread (--split): its connection and requestId. */
type Handed = [connection: number, requestId: number]

const role = isMainThread ? undefined : (workerData as { role?: string }).role
if (role === 'echo-io') {
  // --split: this thread owns the sockets; the main thread does each request's work.
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' })
  const sockets: WebSocket[] = []
  const handed: Handed[] = []
  server.on('connection', (socket) => {
    const connection = sockets.push(socket) - 1
    socket.on('message', (data) => {
      const request = JSON.parse(String(data)) as { requestId: number }
      // All that this turn of the loop reads goes over in one message, after its reads.
      if (handed.length === 0) setImmediate(() => parentPort!.postMessage(handed.splice(0)))
      handed.push([connection, request.requestId])
    })
  })
  parentPort!.on('message', (answered: Handed[]) => {
    for (const [connection, requestId] of answered) sockets[connection]!.send(answer(requestId))
  })
  server.on('listening', () =>
    parentPort!.postMessage((server.address() as AddressInfo).port satisfies number),
  )
} else if (values.child === 'echo' && values.split) {
  const io = new Worker(import.meta.filename, {
    argv: process.argv.slice(2),
    workerData: { role: 'echo-io' },
  })
  io.once('message', (port: number) => {
    process.send!(port)
    io.on('message', (handed: Handed[]) => {
      for (const _ of handed) work()
      io.postMessage(handed)
    })
  })
} else if (values.child === 'echo') {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' })
  server.on('connection', (socket) => {
    socket.on('message', (data) => {
      const request = JSON.parse(String(data)) as { requestId: number }
      work()
      socket.send(answer(request.requestId))
    })
  })
  server.on('listening', () => process.send!((server.address() as AddressInfo).port))
} else if (values.child === 'fanout' || !isMainThread) {
  // One writer: the process itself, or (--threads) each of its threads on a shared port.
  const threaded = !isMainThread || Number(values.threads) > 1
  const port: number = isMainThread ? 0 : (workerData as { port: number }).port
  const http = createServer()
  const server = new WebSocketServer({ server: http })
  const sockets: Duplex[] = []
  server.on('connection', (socket) => {
    sockets.push((socket as unknown as { _socket: Duplex })._socket)
  })
  const rounds = (count: number, done: (roundMs: number[]) => void) => {
    const roundMs: number[] = []
    let round = 0
    const timer = setInterval(() => {
      const startedAt = Date.now()
      const started = performance.now()
      // The timestamp is what the reader measures from; padding makes the frame 300 bytes.
      const text = JSON.stringify({ event: 'book', timestamp: startedAt, pad: '' })
      const frame = frameText(text.replace('"pad":""', `"pad":"${'x'.repeat(300 - text.length)}"`))
      for (const socket of sockets) socket.write(frame)
      roundMs.push(performance.now() - started)
      round += 1
      if (round === count) {
        clearInterval(timer)
        done(roundMs)
      }
    }, 100)
  }
  http.listen({ port, host: '127.0.0.1', reusePort: threaded }, async () => {
    if (!isMainThread) {
      parentPort!.on('message', (message: { rounds: number }) =>
        rounds(message.rounds, (roundMs) =>
          parentPort!.postMessage({ roundMs, sockets: sockets.length }),
        ),
      )
      parentPort!.postMessage('listening')
      return
    }
    const shared = (http.address() as AddressInfo).port
    // The other threads listen on the same port; this one writes too.
    const workers = Array.from(
      { length: Number(values.threads) - 1 },
      () =>
        new Worker(import.meta.filename, {
          argv: process.argv.slice(2),
          workerData: { port: shared },
        }),
    )
    await Promise.all(
      workers.map((worker) => new Promise((resolve) => worker.once('message', resolve))),
    )
    process.send!(shared)
    process.on('message', async (message: { rounds: number }) => {
      const results = await Promise.all([
        new Promise<{ roundMs: number[]; sockets: number }>((resolve) =>
          rounds(message.rounds, (roundMs) => resolve({ roundMs, sockets: sockets.length })),
        ),
        ...workers.map((worker) => {
          const done = new Promise<{ roundMs: number[]; sockets: number }>((resolve) =>
            worker.once('message', resolve),
          )
          worker.postMessage(message)
          return done
        }),
      ])
      for (const worker of workers) await worker.terminate()
      // A round lasts as long as its slowest thread's.
      const roundMs = results[0]!.roundMs.map((_, index) =>
        Math.max(...results.map((result) => result.roundMs[index] ?? 0)),
      )
      process.send!({ roundMs, perThread: results.map((result) => result.sockets) })
    })
  })
}

// --- the generator ----------------------------------------------------------------------------
function startChild(mode: string): Promise<{ child: ChildProcess; url: string }> {
  const options = ['--threads', values.threads, '--work', values.work]
  const child = fork(
    import.meta.filename,
    ['--child', mode, ...options, ...(values.split ? ['--split'] : [])],
    { stdio: 'inherit' },
  )
  return new Promise((resolve) => {
    child.once('message', (port) => resolve({ child, url: `ws://127.0.0.1:${port}` }))
  })
}

function open(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url)
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket))
    socket.once('error', reject)
  })
}

async function echo(): Promise<void> {
  const rate = Number(values.rate)
  const seconds = Math.min(Number(values.seconds), 60)
  const warmupSeconds = 2
  const { child, url } = await startChild('echo')
  const sockets = await Promise.all(
    Array.from({ length: Number(values.connections) }, () => open(url)),
  )
  const latencyUs = histogram(60_000_000)
  const planned = new Map<number, number>()
  const total = rate * (warmupSeconds + seconds)
  const startedAt = performance.now()
  const measureFrom = startedAt + warmupSeconds * 1000
  for (const socket of sockets) {
    socket.on('message', (data: Buffer) => {
      const requestId = (JSON.parse(String(data)) as { requestId: number }).requestId
      const at = planned.get(requestId)!
      planned.delete(requestId)
      if (at >= measureFrom)
        latencyUs.recordValue(Math.max(1, Math.round((performance.now() - at) * 1000)))
    })
  }
  let sent = 0
  let cpuAtStart: ReturnType<typeof cpuSeconds> | undefined
  setTimeout(() => {
    cpuAtStart = cpuSeconds(child.pid!)
  }, warmupSeconds * 1000)
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now()
      while (sent < total && startedAt + (sent * 1000) / rate <= now) {
        planned.set(sent, startedAt + (sent * 1000) / rate)
        sockets[sent % sockets.length]!.send(JSON.stringify({ action: 'echo', requestId: sent }))
        sent += 1
      }
      if (sent < total) setTimeout(tick, 1)
      else resolve()
    }
    tick()
  })
  const cpuAtEnd = cpuSeconds(child.pid!)
  const sendingSeconds = (performance.now() - measureFrom) / 1000
  while (planned.size > 0) await new Promise((resolve) => setTimeout(resolve, 20))
  const ms = (percentile: number) => (latencyUs.getValueAtPercentile(percentile) / 1000).toFixed(2)
  const share = (key: 'main' | 'process') =>
    `${((100 * (cpuAtEnd[key] - cpuAtStart![key])) / sendingSeconds).toFixed(0)}%`
  const server =
    Number(values.work) === 0
      ? 'a server that only answers'
      : `a server that works ${values.work} µs on each request${values.split ? ', its sockets on a thread of their own' : ''}`
  console.log(
    `echo: ${rate} requests/s for ${seconds} s over ${sockets.length} connections to ${server}: p50 ${ms(50)} ms, p90 ${ms(90)} ms, p99 ${ms(99)} ms, p99.9 ${ms(99.9)} ms, max ${(latencyUs.maxValue / 1000).toFixed(2)} ms; the server's main thread ${share('main')} of a core, the whole server ${share('process')}`,
  )
  for (const socket of sockets) socket.close()
  child.kill()
}

/** CPU seconds so far of a process's main thread and of the whole process (from /proc). */
function cpuSeconds(pid: number): { main: number; process: number } {
  return {
    main: cpuSecondsOf(`/proc/${pid}/task/${pid}/stat`),
    process: cpuSecondsOf(`/proc/${pid}/stat`),
  }
}

async function fanOut(): Promise<void> {
  const count = Math.min(Number(values.subscribers), 20_000)
  const rounds = Math.min(Number(values.rounds), 600)
  const { child, url } = await startChild('fanout')
  const delayMs = histogram(60_000)
  const sockets: WebSocket[] = []
  for (let index = 0; index < count; index += 1) {
    const socket = await open(url)
    socket.on('message', (data: Buffer) => {
      const head = data.toString('latin1', 0, 64)
      const timestamp = Number(head.slice(head.indexOf(':', 20) + 1, head.indexOf(',', 20)))
      delayMs.recordValue(Math.max(1, Date.now() - timestamp))
    })
    sockets.push(socket)
  }
  const result = new Promise<{ roundMs: number[]; perThread?: number[] }>((resolve) =>
    child.once('message', resolve),
  )
  child.send({ rounds })
  const { roundMs, perThread } = await result
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  roundMs.sort((a, b) => a - b)
  console.log(
    `fan-out: one 300-byte frame to each of ${count} connections every 100 ms${perThread && perThread.length > 1 ? ` from ${perThread.length} threads (${perThread.join(' + ')} connections)` : ''}, ${rounds} rounds: a round of writes takes p50 ${roundMs[Math.floor(rounds / 2)]!.toFixed(1)} ms, max ${roundMs.at(-1)!.toFixed(1)} ms; round start → arrival p50 ${delayMs.getValueAtPercentile(50)} ms, p99 ${delayMs.getValueAtPercentile(99)} ms (${delayMs.totalCount} of ${count * rounds} arrived)`,
  )
  for (const socket of sockets) socket.terminate()
  child.kill()
}

if (values.child === undefined && isMainThread) {
  if (values.only !== 'fanout') await echo()
  if (values.only !== 'echo') await fanOut()
}
