// CPU time of a process or one of its threads, from /proc (Linux): what the benchmarks print as
// the share of a core the server and its main thread took.
import { readdirSync, readFileSync } from 'node:fs'

/** CPU seconds so far (user + system) from a `/proc/<pid>/stat` or `/proc/<pid>/task/<tid>/stat`. */
export function cpuSecondsOf(statPath: string): number {
  // The fields after the command name (which may hold spaces) start at the state, field 3.
  const fields = readFileSync(statPath, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100 // utime + stime, USER_HZ = 100
}

/** What a server thread is, from the name Node and V8 give it (`/proc/<pid>/task/<tid>/comm`). */
export type ThreadKind = 'main' | 'v8' | 'workers' | 'libuv' | 'other'

function kindOf(pid: number, tid: number, name: string): ThreadKind {
  if (tid === pid) return 'main'
  if (name.startsWith('V8')) return 'v8' // V8's platform threads: GC helpers and compilers
  if (name.startsWith('WorkerThread')) return 'workers' // worker_threads: database, archives
  if (name.startsWith('libuv')) return 'libuv' // the thread pool: files, scrypt
  return 'other'
}

/** CPU seconds so far of a process's threads, summed by kind (threads that ended are lost). */
export function cpuSecondsByThreadKind(pid: number): Record<ThreadKind, number> {
  const seconds: Record<ThreadKind, number> = { main: 0, v8: 0, workers: 0, libuv: 0, other: 0 }
  for (const entry of readdirSync(`/proc/${pid}/task`)) {
    const tid = Number(entry)
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()
      seconds[kindOf(pid, tid, name)] += cpuSecondsOf(`/proc/${pid}/task/${tid}/stat`)
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return seconds
}
