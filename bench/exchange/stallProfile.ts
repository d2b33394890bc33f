// What the server's main thread was running during its event-loop stalls: the samples of a V8
// CPU profile (`--cpu-prof`) that fall inside the stalls the stall monitor recorded
// (stallMonitor.ts), counted by the task they belong to and by the function on the CPU, beside
// the same counts for the samples outside the stalls. The load benchmark prints it with
// `--stall-profile`; alone: node bench/exchange/stallProfile.ts <stall log> <cpuprofile>.
import { readFileSync } from 'node:fs'
import { type Pause, readClockOffset, readPauses } from './stallMonitor.ts'

type ProfileNode = {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
export type CpuProfile = {
  nodes: ProfileNode[]
  /** Microseconds on the monotonic clock. */
  startTime: number
  samples: number[]
  timeDeltas: number[]
}

const root = new URL('../../', import.meta.url).href

/** `name (file:line)`, the file relative to the repository. */
function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame
  const file = url.startsWith(root) ? url.slice(root.length) : url.replace(/^node:/, 'node:')
  const name = functionName || '(anonymous)'
  return file === '' ? name : `${name} (${file}:${lineNumber + 1})`
}

/** Whether a frame is the project's own code (not Node's, not a dependency's). */
function isOwn(node: ProfileNode): boolean {
  const { url } = node.callFrame
  return url.startsWith(root) && !url.includes('/node_modules/')
}

/**
 * Lines that say, for the server's loop stalls of [fromMs, toMs] (wall clock) that no GC
 * overlapped, which tasks and functions their samples were in, the share of each, and the same
 * share among the samples outside stalls.
 */
export function stallProfile(
  stallLog: string,
  profile: CpuProfile,
  fromMs: number,
  toMs: number,
  top = 12,
): string[] {
  const offsetMs = readClockOffset(stallLog)
  if (offsetMs === undefined) return ['  stall profile: the stall log has no clock line']
  const pauses = readPauses(stallLog)
  const gcs = pauses.filter((pause) => pause.kind === 'gc')
  // Stalls as spans on the monotonic clock, in µs, sorted (the log is in time order).
  const stalls = pauses
    .filter(
      (pause): pause is Extract<Pause, { kind: 'stall' }> =>
        pause.kind === 'stall' &&
        pause.startMs >= fromMs &&
        pause.startMs <= toMs &&
        !gcs.some(
          (gc) =>
            gc.startMs < pause.startMs + pause.durationMs &&
            gc.startMs + gc.durationMs > pause.startMs,
        ),
    )
    .map((stall) => [
      (stall.startMs + offsetMs) * 1000,
      (stall.startMs + stall.durationMs + offsetMs) * 1000,
    ])
  const parentOf = new Map<number, ProfileNode>()
  const nodeById = new Map<number, ProfileNode>()
  for (const node of profile.nodes) {
    nodeById.set(node.id, node)
    for (const child of node.children ?? []) parentOf.set(child, node)
  }
  /** The task: the outermost own frame of the stack, or the outermost frame under the root. */
  const taskOf = (leaf: ProfileNode): string => {
    let outermostOwn: ProfileNode | undefined
    let outermost: ProfileNode = leaf
    for (
      let node: ProfileNode | undefined = leaf;
      node !== undefined;
      node = parentOf.get(node.id)
    ) {
      if (node.callFrame.functionName === '(root)') break
      outermost = node
      if (isOwn(node)) outermostOwn = node
    }
    return frameName(outermostOwn ?? outermost)
  }
  /** The innermost own frame: where in our code the time went. */
  const ownOf = (leaf: ProfileNode): string => {
    for (let node: ProfileNode | undefined = leaf; node !== undefined; node = parentOf.get(node.id))
      if (isOwn(node)) return frameName(node)
    return frameName(leaf)
  }
  const counts = {
    inside: { total: 0, task: new Map<string, number>(), own: new Map<string, number>() },
    outside: { total: 0, task: new Map<string, number>(), own: new Map<string, number>() },
  }
  const fromUs = (fromMs + offsetMs) * 1000
  const toUs = (toMs + offsetMs) * 1000
  let timeUs = profile.startTime
  let stallIndex = 0
  for (let index = 0; index < profile.samples.length; index += 1) {
    timeUs += profile.timeDeltas[index]!
    if (timeUs < fromUs || timeUs > toUs) continue
    const leaf = nodeById.get(profile.samples[index]!)!
    if (leaf.callFrame.functionName === '(idle)') continue
    while (stallIndex < stalls.length && stalls[stallIndex]![1]! < timeUs) stallIndex += 1
    const stall = stalls[stallIndex]
    const side = stall !== undefined && stall[0]! <= timeUs ? counts.inside : counts.outside
    side.total += 1
    for (const [map, key] of [
      [side.task, taskOf(leaf)],
      [side.own, ownOf(leaf)],
    ] as const)
      map.set(key, (map.get(key) ?? 0) + 1)
  }
  const percent = (count: number, total: number) =>
    `${((100 * count) / Math.max(1, total)).toFixed(1)}%`
  const table = (title: string, key: 'task' | 'own') => [
    `  ${title} (share of the samples in stalls | outside them):`,
    ...[...counts.inside[key]]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([name, count]) =>
          `    ${percent(count, counts.inside.total).padStart(6)} | ${percent(counts.outside[key].get(name) ?? 0, counts.outside.total).padStart(6)}  ${name}`,
      ),
  ]
  return [
    `  stall profile: ${stalls.length} stalls without a GC, ${counts.inside.total} busy samples in them, ${counts.outside.total} outside them`,
    ...table('tasks (the outermost own frame)', 'task'),
    ...table('where in our code (the innermost own frame)', 'own'),
  ]
}

if (import.meta.main) {
  const [stallLogPath, profilePath] = process.argv.slice(2)
  if (stallLogPath === undefined || profilePath === undefined) {
    console.error('usage: node bench/exchange/stallProfile.ts <stall log> <cpuprofile>')
    process.exit(2)
  }
  const profile = JSON.parse(readFileSync(profilePath, 'utf8')) as CpuProfile
  for (const line of stallProfile(
    readFileSync(stallLogPath, 'utf8'),
    profile,
    Number.NEGATIVE_INFINITY,
    Number.POSITIVE_INFINITY,
  ))
    console.log(line)
}
