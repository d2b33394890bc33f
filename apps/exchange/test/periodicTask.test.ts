// The timer behind the withdrawal processor, the savings scheduler, staking accrual and the
// payment retries: a run every interval, never two at once.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { PeriodicTask } from '../src/core/periodicTask.ts'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

/** A job whose runs finish only when the test says so. */
function controlledJob() {
  const finishers: (() => void)[] = []
  let runs = 0
  const job = () => {
    runs += 1
    return new Promise<number>((resolve) => finishers.push(() => resolve(runs)))
  }
  return { job, finishers, runs: () => runs }
}

const noError = (error: unknown) => {
  throw error
}

describe('periodic task', () => {
  it('runs the job every interval once started, and no more once stopped', async () => {
    let runs = 0
    const task = new PeriodicTask(async () => {
      runs += 1
      return runs
    }, 0)
    await vi.advanceTimersByTimeAsync(1_000)
    expect(runs).toBe(0) // not before start
    task.start(100, noError)
    task.start(100, noError) // a second start keeps the first timer
    await vi.advanceTimersByTimeAsync(350)
    expect(runs).toBe(3)
    task.stop()
    await vi.advanceTimersByTimeAsync(1_000)
    expect(runs).toBe(3)
    task.start(100, noError) // and starts again after a stop
    await vi.advanceTimersByTimeAsync(100)
    expect(runs).toBe(4)
    task.stop()
  })

  it('skips a run that comes due while the previous one is still going, rather than queueing it', async () => {
    const { job, finishers, runs } = controlledJob()
    const task = new PeriodicTask(job, -1)
    task.start(100, noError)
    await vi.advanceTimersByTimeAsync(500)
    expect(runs()).toBe(1) // four ticks came while the first run was going
    expect(await task.run()).toBe(-1) // a direct run too gives `skipped` at once
    finishers[0]!()
    await vi.advanceTimersByTimeAsync(100)
    expect(runs()).toBe(2) // the next tick after it finished runs again
    task.stop()
    finishers[1]!()
  })

  it('gives the job result to a direct run, and runs again after a job that failed', async () => {
    let fail = true
    const task = new PeriodicTask(async () => {
      if (fail) throw new Error('journal down')
      return 'done'
    }, 'skipped')
    await expect(task.run()).rejects.toThrow('journal down')
    fail = false
    expect(await task.run()).toBe('done')
  })

  it('gives a failed timed run to its error handler and runs again at the next tick', async () => {
    let runs = 0
    const errors: unknown[] = []
    const task = new PeriodicTask(async () => {
      runs += 1
      if (runs === 1) throw new Error('journal down')
      return runs
    }, 0)
    task.start(100, (error) => errors.push(error))
    await vi.advanceTimersByTimeAsync(250)
    expect(errors).toEqual([new Error('journal down')])
    expect(runs).toBe(2)
    task.stop()
  })
})
