// Failed logins per email (src/limits/loginFailures.ts): counted as they start, forgiven on
// success, refused after the limit until the window ends, and bounded in memory.
import { describe, expect, it } from 'vitest'
import { LoginFailures } from '../src/limits/loginFailures.ts'

const config = { failuresMax: 3, windowMs: 1_000, trackedMax: 4 }

describe('LoginFailures', () => {
  it('refuses an email after its failures until its window ends, whatever its case', () => {
    const failures = new LoginFailures(config)
    for (let attempt = 0; attempt < 3; attempt += 1)
      expect(failures.attempt('a@example.com', 100 + attempt)).toBeUndefined()
    expect(failures.attempt(' A@Example.com ', 500)).toEqual({ blockedUntilMs: 1_100 })
    expect(failures.attempt('b@example.com', 500)).toBeUndefined()
    expect(failures.attempt('a@example.com', 1_100)).toBeUndefined()
  })

  it('forgets an email at its success', () => {
    const failures = new LoginFailures(config)
    for (let attempt = 0; attempt < 2; attempt += 1) failures.attempt('a@example.com', 100)
    failures.succeeded('a@example.com')
    for (let attempt = 0; attempt < 3; attempt += 1)
      expect(failures.attempt('a@example.com', 200)).toBeUndefined()
  })

  it('makes room from expired windows first, then from the oldest running one', () => {
    const failures = new LoginFailures(config)
    for (const email of ['1@x.example', '2@x.example']) failures.attempt(email, 0)
    for (const email of ['3@x.example', '4@x.example']) failures.attempt(email, 900)
    for (let attempt = 0; attempt < 2; attempt += 1) failures.attempt('4@x.example', 900)
    // At 1,000 the first two windows have ended: they go first, one per newcomer.
    failures.attempt('5@x.example', 1_000)
    failures.attempt('6@x.example', 1_000)
    expect(failures.tracked).toBe(4)
    expect(failures.attempt('4@x.example', 1_000)).toEqual({ blockedUntilMs: 1_900 })
    // Full of running windows: the oldest (3's) goes for the newcomer, 4's stays.
    failures.attempt('7@x.example', 1_000)
    expect(failures.tracked).toBe(4)
    expect(failures.attempt('4@x.example', 1_000)).toEqual({ blockedUntilMs: 1_900 })
  })
})
