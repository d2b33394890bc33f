// Samples what a process's main thread allocates, collected objects included: V8's sampling
// heap profiler through the inspector, started by the first SIGUSR2 and stopped by the second.
// The load benchmark (`--allocation`) loads it into the server (`--import`) and signals the
// start and the end of its measured window, then reads the summary: bytes allocated in all,
// and by allocating function (its self bytes: what that function's own code allocated).
//
// Written as JSON `{ totalBytes, sites: [{ site, bytes }] }` to the file in
// POLDER_ALLOCATION_LOG.
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'
import { isMainThread } from 'node:worker_threads'

export type AllocationSummary = { totalBytes: number; sites: { site: string; bytes: number }[] }

type ProfileNode = {
  callFrame: { functionName: string; url: string; lineNumber: number }
  selfSize: number
  children: ProfileNode[]
}

/** Sites kept in the summary, the largest first. */
const sitesMax = 25
/**
 * Bytes between samples on average: small enough that a 10 s window at 5,000 requests/s
 * (about a gigabyte allocated) gets some 60,000 samples, large enough to cost little.
 */
const samplingIntervalBytes = 16_384

/** Sums a sampled profile's bytes by allocating function (name, file and line). */
function summarize(head: ProfileNode): AllocationSummary {
  const bySite = new Map<string, number>()
  let totalBytes = 0
  const pending = [head]
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    totalBytes += node.selfSize
    if (node.selfSize > 0) {
      const { functionName, url, lineNumber } = node.callFrame
      const file = url.split('/').slice(-2).join('/')
      const site = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`
      bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize)
    }
    pending.push(...node.children)
  }
  const sites = [...bySite]
    .sort((a, b) => b[1] - a[1])
    .slice(0, sitesMax)
    .map(([site, bytes]) => ({ site, bytes }))
  return { totalBytes, sites }
}

const path = process.env.POLDER_ALLOCATION_LOG
if (isMainThread && path !== undefined) {
  const session = new Session()
  session.connect()
  let sampling = false
  process.on('SIGUSR2', () => {
    if (!sampling) {
      sampling = true
      session.post('HeapProfiler.startSampling', {
        samplingInterval: samplingIntervalBytes,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      })
      return
    }
    sampling = false
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (error) throw error
      writeFileSync(path, JSON.stringify(summarize(result.profile.head as ProfileNode)))
    })
  })
}
