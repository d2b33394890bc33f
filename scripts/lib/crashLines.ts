// What a crashing Node.js process prints before it dies: V8's fatal errors (a failed internal
// check, "Fatal JavaScript invalid size error", an "abort: ..." from generated code; these end
// the process with SIGTRAP) and Node's own ("FATAL ERROR: ...", an out-of-memory; SIGABRT),
// each followed by a stack trace. Vitest passes a test process's stderr through in the middle
// of everything else, and then reports only "Worker exited unexpectedly with signal ..."; a CI
// log that keeps only its tail loses the one line that says why. The test runner feeds its
// stderr through here and prints what was caught again beside the summary.

/** Lines that start a crash report. */
const crashStart =
  /^(#\s*Fatal error|#\s*Check failed|#\s*Debug check failed|FATAL ERROR:|Fatal JavaScript|Fatal process out of memory|abort: |.*Assertion `.*' failed\.)/

/** Lines kept after a crash report's first line: enough for its message and stack trace. */
const linesAfterStart = 40

export class CrashLines {
  readonly #kept: string[] = []
  #partial = ''
  #keeping = 0

  /** Feeds text as it arrives (any split across lines). */
  feed(text: string): void {
    const lines = (this.#partial + text).split('\n')
    this.#partial = lines.pop() ?? ''
    for (const line of lines) this.#line(line)
  }

  /** The lines of the crash reports seen, in order, a blank line between reports; empty when nothing crashed. */
  lines(): string[] {
    if (this.#partial !== '') {
      this.#line(this.#partial)
      this.#partial = ''
    }
    return [...this.#kept]
  }

  #line(raw: string): void {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes are what it removes
    const line = raw.replace(/\x1b\[[0-9;]*m/g, '').trimEnd()
    if (crashStart.test(line.trimStart())) {
      if (this.#keeping === 0 && this.#kept.length > 0) this.#kept.push('')
      this.#keeping = linesAfterStart + 1
    }
    if (this.#keeping > 0) {
      this.#kept.push(line)
      this.#keeping -= 1
    }
  }
}
