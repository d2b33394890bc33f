// Records when a process's event loop could not run: every garbage-collection pause (from V8,
// with its kind) and every gap of more than `stallMinMs` between two ticks of a 1 ms timer, with
// how much of that gap the thread itself spent on the CPU (a busy loop), how much it waited for
// a CPU (runnable, on the kernel's run queue: another thread had the core), and so how much it
// slept in the kernel (a lock, a page fault, I/O). The load benchmark (`--attribute`) loads it
// into the server (`--import`) and runs it in its own process, then lays its slow requests
// against both records to say where their time went.
//
// Written as lines `gc <startMs> <durationMs> <kind>` and
// `stall <startMs> <durationMs> <cpuMs> <runQueueMs>`
// (wall-clock ms) to the file in POLDER_STALL_LOG, every second and at exit; the first line,
// `clock <wallMs> <monotonicMs>`, ties those times to the monotonic clock of a V8 CPU profile
// (stallProfile.ts).
import { appendFileSync, openSync, readSync, writeFileSync } from 'node:fs'
import { constants, PerformanceObserver, performance } from 'node:perf_hooks'
import { isMainThread } from 'node:worker_threads'

export const stallMinMs = 2

export type Pause =
  | { kind: 'gc'; startMs: number; durationMs: number; gc: 'minor' | 'major' | 'other' }
  | { kind: 'stall'; startMs: number; durationMs: number; cpuMs: number; runQueueMs: number }

/**
 * The calling thread's time on the CPU and waiting on the run queue so far, in ms
 * (/proc/thread-self/schedstat: nanoseconds on the CPU, nanoseconds runnable but waiting).
 */
function scheduling(): () => { cpuMs: number; runQueueMs: number } {
  const fd = openSync('/proc/thread-self/schedstat', 'r')
  const buffer = Buffer.alloc(128)
  return () => {
    const length = readSync(fd, buffer, 0, buffer.length, 0)
    const [cpu, waited] = buffer.toString('latin1', 0, length).split(' ')
    return { cpuMs: Number(cpu) / 1e6, runQueueMs: Number(waited) / 1e6 }
  }
}

/** The offset to add to a wall-clock ms of the log to get the monotonic clock's ms. */
export function readClockOffset(text: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith('clock '))
  if (line === undefined) return undefined
  const [, wallMs, monotonicMs] = line.split(' ')
  return Number(monotonicMs) - Number(wallMs)
}

/** Starts recording into `path` (the main thread only); returns a function that stops it. */
export function monitorStalls(path: string): () => void {
  const origin = performance.timeOrigin
  writeFileSync(
    path,
    `clock ${(origin + performance.now()).toFixed(3)} ${(Number(process.hrtime.bigint()) / 1e6).toFixed(3)}\n`,
  )
  let lines: string[] = []
  const flush = () => {
    if (lines.length === 0) return
    appendFileSync(path, `${lines.join('\n')}\n`)
    lines = []
  }
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind
      const gc =
        kind === constants.NODE_PERFORMANCE_GC_MINOR
          ? 'minor'
          : kind === constants.NODE_PERFORMANCE_GC_MAJOR
            ? 'major'
            : 'other'
      lines.push(`gc ${(origin + entry.startTime).toFixed(3)} ${entry.duration.toFixed(3)} ${gc}`)
    }
  })
  observer.observe({ entryTypes: ['gc'] })
  const readScheduling = scheduling()
  let last = performance.now()
  let lastScheduling = readScheduling()
  const ticker = setInterval(() => {
    const now = performance.now()
    const times = readScheduling()
    if (now - last > stallMinMs + 1) {
      const cpuMs = times.cpuMs - lastScheduling.cpuMs
      const runQueueMs = times.runQueueMs - lastScheduling.runQueueMs
      lines.push(
        `stall ${(origin + last).toFixed(3)} ${(now - last).toFixed(3)} ${cpuMs.toFixed(3)} ${runQueueMs.toFixed(3)}`,
      )
    }
    last = now
    lastScheduling = times
  }, 1)
  ticker.unref()
  const flusher = setInterval(flush, 1_000)
  flusher.unref()
  process.once('exit', flush)
  return () => {
    observer.disconnect()
    clearInterval(ticker)
    clearInterval(flusher)
    flush()
  }
}

export function readPauses(text: string): Pause[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('gc ') || line.startsWith('stall '))
    .map((line) => {
      const [kind, start, duration, last, runQueue] = line.split(' ')
      return kind === 'gc'
        ? {
            kind: 'gc',
            startMs: Number(start),
            durationMs: Number(duration),
            gc: last as 'minor' | 'major' | 'other',
          }
        : {
            kind: 'stall',
            startMs: Number(start),
            durationMs: Number(duration),
            cpuMs: Number(last),
            runQueueMs: Number(runQueue),
          }
    })
}

// Loaded with --import into the server: records its main thread (not its worker threads).
const path = process.env.POLDER_STALL_LOG
if (path !== undefined && isMainThread && process.argv[1]?.endsWith('main.ts')) monitorStalls(path)

/** One request: when it was planned to be sent and how long its answer took, in ms. */
export type Timed = { plannedMs: number; latencyMs: number }

/**
 * Lines that say what the requests slower than `slowMs` overlapped, in this order of blame: a GC
 * pause of the server, another stall of the server's event loop, a stall (or GC) of the
 * generator, or none of these (the kernel, the network stack, queueing behind other work);
 * then the server's pauses inside [fromMs, toMs].
 */
export function attribution(
  requests: readonly Timed[],
  slowMs: number,
  server: readonly Pause[],
  generator: readonly Pause[],
  fromMs: number,
  toMs: number,
): string[] {
  const serverGcs = overlapFinder(server.filter((pause) => pause.kind === 'gc'))
  const serverStalls = overlapFinder(server.filter((pause) => pause.kind === 'stall'))
  const generatorPauses = overlapFinder(generator)
  const counts = { serverGc: 0, serverStall: 0, generator: 0, neither: 0 }
  // The same question for the requests that were not slow: how often a request overlaps a
  // pause by chance, the baseline the shares of the slow ones are read against.
  const fast = { count: 0, serverGc: 0, serverStall: 0 }
  const slow: Timed[] = []
  for (const request of requests) {
    if (request.latencyMs <= slowMs) {
      fast.count += 1
      if (serverGcs(request)) fast.serverGc += 1
      else if (serverStalls(request)) fast.serverStall += 1
      continue
    }
    slow.push(request)
    if (serverGcs(request)) counts.serverGc += 1
    else if (serverStalls(request)) counts.serverStall += 1
    else if (generatorPauses(request)) counts.generator += 1
    else counts.neither += 1
  }
  const measured = requests.length
  const inWindow = server.filter((pause) => pause.startMs >= fromMs && pause.startMs <= toMs)
  const seconds = (toMs - fromMs) / 1000
  const summary = (durations: number[]) => {
    const sorted = durations.sort((a, b) => a - b)
    const total = sorted.reduce((sum, value) => sum + value, 0)
    return sorted.length === 0
      ? 'none'
      : `${sorted.length} (${(sorted.length / seconds).toFixed(1)}/s), ${total.toFixed(0)} ms in all, p50 ${sorted[sorted.length >> 1]!.toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`
  }
  const gcs = inWindow.filter((pause) => pause.kind === 'gc')
  const stalls = inWindow.filter(
    (pause): pause is Extract<Pause, { kind: 'stall' }> =>
      pause.kind === 'stall' &&
      !gcs.some(
        (gc) => gc.startMs >= pause.startMs && gc.startMs <= pause.startMs + pause.durationMs,
      ),
  )
  const stallMs = stalls.reduce((sum, stall) => sum + stall.durationMs, 0)
  const stallCpuMs = stalls.reduce((sum, stall) => sum + Math.min(stall.cpuMs, stall.durationMs), 0)
  const stallRunQueueMs = stalls.reduce((sum, stall) => sum + stall.runQueueMs, 0)
  const longest = [...stalls]
    .sort((a, b) => b.durationMs - a.durationMs)
    .slice(0, 3)
    .map(
      (stall) =>
        `${stall.durationMs.toFixed(1)} ms at ${((stall.startMs - fromMs) / 1000).toFixed(2)} s (${Math.min(stall.cpuMs, stall.durationMs).toFixed(1)} ms on the CPU, ${stall.runQueueMs.toFixed(1)} waiting for one)`,
    )
  const share = (count: number) =>
    `${count} (${((100 * count) / Math.max(1, slow.length)).toFixed(0)}%)`
  const percent = (count: number) => `${((100 * count) / Math.max(1, fast.count)).toFixed(0)}%`
  return [
    `  requests over ${slowMs} ms: ${slow.length} of ${measured} (${((100 * slow.length) / Math.max(1, measured)).toFixed(2)}%); overlapping a server GC ${share(counts.serverGc)}, another server loop stall ${share(counts.serverStall)}, a generator stall ${share(counts.generator)}, none of these ${share(counts.neither)}`,
    `  for comparison, of the requests at or under ${slowMs} ms ${percent(fast.serverGc)} overlapped a server GC and ${percent(fast.serverStall)} another server loop stall`,
    `  server minor GCs: ${summary(gcs.filter((gc) => gc.kind === 'gc' && gc.gc === 'minor').map((gc) => gc.durationMs))}`,
    `  server major GCs: ${summary(gcs.filter((gc) => gc.kind === 'gc' && gc.gc !== 'minor').map((gc) => gc.durationMs))}`,
    `  server loop stalls over ${stallMinMs + 1} ms without a GC: ${summary(stalls.map((stall) => stall.durationMs))}; of their ${stallMs.toFixed(0)} ms, ${stallCpuMs.toFixed(0)} on the CPU, ${stallRunQueueMs.toFixed(0)} waiting for a CPU, the rest asleep in the kernel; the longest: ${longest.join(', ') || 'none'}`,
  ]
}

/** Whether a request's span overlaps one of `pauses` (sorted here once, then binary-searched). */
function overlapFinder(pauses: readonly Pause[]): (request: Timed) => boolean {
  const sorted = [...pauses].sort((a, b) => a.startMs - b.startMs)
  const longestMs = sorted.reduce((longest, pause) => Math.max(longest, pause.durationMs), 0)
  return (request) => {
    const endMs = request.plannedMs + request.latencyMs
    // The last pause that starts before the request ends...
    let low = 0
    let high = sorted.length
    while (low < high) {
      const middle = (low + high) >> 1
      if (sorted[middle]!.startMs < endMs) low = middle + 1
      else high = middle
    }
    // ...and those before it that could still reach into the request.
    for (let index = low - 1; index >= 0; index -= 1) {
      const pause = sorted[index]!
      if (pause.startMs + longestMs <= request.plannedMs) break
      if (pause.startMs + pause.durationMs > request.plannedMs) return true
    }
    return false
  }
}
