// CPU time of a process or one of its threads, from /proc (Linux): what the benchmarks print as
// the share of a core the server and its main thread took.
import { readFileSync } from 'node:fs'

/** CPU seconds so far (user + system) from a `/proc/<pid>/stat` or `/proc/<pid>/task/<tid>/stat`. */
export function cpuSecondsOf(statPath: string): number {
  // The fields after the command name (which may hold spaces) start at the state, field 3.
  const fields = readFileSync(statPath, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100 // utime + stime, USER_HZ = 100
}
