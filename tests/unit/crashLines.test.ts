import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { CrashLines } from '../../scripts/lib/crashLines.ts'

/** The stderr of a real Node.js process that dies, fed through CrashLines in small pieces. */
function crashOf(args: string[]): { signal: NodeJS.Signals | null; lines: string[] } {
  const run = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 60_000 })
  const crash = new CrashLines()
  crash.feed('ordinary test output\nstderr | a test > logs a line\n')
  for (let at = 0; at < run.stderr.length; at += 7) crash.feed(run.stderr.slice(at, at + 7))
  crash.feed('more ordinary output\n')
  return { signal: run.signal, lines: crash.lines() }
}

describe('CrashLines', () => {
  it("keeps V8's abort of a process (SIGTRAP) with its message and JS stack, and nothing else", () => {
    const { signal, lines } = crashOf([
      '--allow-natives-syntax',
      '-e',
      '%AbortJS("the reason it died")',
    ])
    expect(signal).toBe('SIGTRAP')
    expect(lines[0]).toBe('abort: the reason it died')
    expect(lines.some((line) => line.includes('JS stack trace'))).toBe(true)
    expect(lines.join('\n')).not.toContain('ordinary')
  })

  it('keeps an out-of-memory death (SIGABRT) from its FATAL ERROR line', () => {
    const { signal, lines } = crashOf([
      '--max-old-space-size=16',
      '-e',
      'const kept = []; for (;;) kept.push({ at: [kept.length] })',
    ])
    expect(signal).toBe('SIGABRT')
    expect(lines[0]).toMatch(/^FATAL ERROR: .*heap out of memory/)
    expect(lines.join('\n')).not.toContain('Last few GCs')
  })

  it('keeps a failed V8 check to 40 lines past its last heading line, and separates two reports', () => {
    const check = [
      '#',
      '# Fatal error in , line 0',
      '# Check failed: node->IsInUse().',
      '#',
      '#FailureMessage Object: 0x7ffd',
      '----- Native stack trace -----',
      ...Array.from({ length: 60 }, (_, index) => ` ${index + 1}: 0x${index.toString(16)}`),
    ]
    const crash = new CrashLines()
    crash.feed(`\u001b[31m${check.join('\n')}\n`)
    crash.feed('FATAL ERROR: v8::ToLocalChecked Empty MaybeLocal')
    const lines = crash.lines()
    expect(lines[0]).toBe('# Fatal error in , line 0')
    // "# Check failed" (the third line) is a heading too: 40 lines are kept after it.
    expect(lines.slice(0, 42)).toEqual(check.slice(1, 43))
    expect(lines.slice(42)).toEqual(['', 'FATAL ERROR: v8::ToLocalChecked Empty MaybeLocal'])
  })

  it('has nothing to say about output without a crash', () => {
    const crash = new CrashLines()
    crash.feed('✓ a test\nError: expected 1 to be 2\n    at test.ts:3:4\n')
    expect(crash.lines()).toEqual([])
  })
})
