// `main.ts` as an operator runs it, in its own process: asking for help, and starts that fail on
// something the operator can put right, which are said in one line of words (exit 1), without
// a stack trace.
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { serverNodeFlags } from '../src/nodeFlags.ts'

const mainPath = join(import.meta.dirname, '..', 'src', 'main.ts')
const readmePath = join(import.meta.dirname, '..', 'README.md')
const scratch = mkdtempSync(join(tmpdir(), 'polder-operations-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

type Run = { stdout: string; stderr: string; code: number | null }

/** `main.ts <args>` with `env` added to this process's: its output and its exit code. */
function exchange(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...serverNodeFlags, mainPath, ...args],
      { env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (error as { code?: unknown }).code : 0
        resolve({ stdout, stderr, code: typeof code === 'number' ? code : null })
      },
    )
  })
}

/** A stack trace's frames, which an operator's error should not need. */
const stackFrame = /^\s+at \S/m

/** A fresh directory under the scratch directory. */
function freshDir(name: string): string {
  const dir = join(scratch, name)
  mkdirSync(dir, { recursive: true })
  return dir
}

describe('help', () => {
  const readme = readFileSync(readmePath, 'utf8')
  // The flags of the README's configuration table and the commands of its examples.
  const readmeFlags = [...readme.matchAll(/^\| `(--[a-z-]+)`/gm)].map((match) => match[1]!)
  const readmeCommands = [
    ...readme.matchAll(/^npm run (?:-s )?exchange -- ([a-z]+(?: [a-z][a-z-]*)?) --/gm),
  ].map((match) => match[1]!)

  it('--help, -h, help and serve --help print the usage on stdout and exit 0', async () => {
    const runs = await Promise.all(
      [['--help'], ['-h'], ['help'], ['serve', '--help'], ['balances', '--help']].map((args) =>
        exchange(args),
      ),
    )
    for (const run of runs) {
      expect(run).toMatchObject({ code: 0, stderr: '' })
      expect(run.stdout).toMatch(/^usage:\n/)
    }
  }, 60_000)

  it('the usage names every serve flag and every command the README documents', async () => {
    expect(readmeFlags).toContain('--trust-proxy')
    expect(readmeCommands).toContain('key revoke')
    const { stdout } = await exchange(['--help'])
    expect(readmeFlags.filter((flag) => !stdout.includes(`[${flag}`))).toEqual([])
    expect(readmeCommands.filter((command) => !stdout.includes(`exchange ${command} `))).toEqual([])
  }, 60_000)

  it('no command is still an error: the usage on stderr, exit 2', async () => {
    const run = await exchange([])
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/^no command\nusage:\n/)
  }, 60_000)
})

describe('a start that fails', () => {
  /** Expects one line on stderr that says `words`, exit 1 and no stack trace. */
  function expectOneLine(run: Run, words: string): void {
    expect(run.stderr).not.toMatch(stackFrame)
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^cannot start the exchange server: /),
    ])
    expect(run.stderr).toContain(words)
    expect(run.code).toBe(1)
  }

  it('on a port another process holds says so in one line', async () => {
    const holder: Server = createServer()
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
    const port = (holder.address() as { port: number }).port
    try {
      const run = await exchange([
        'serve',
        '--no-simulator',
        '--port',
        String(port),
        '--data',
        freshDir('busy'),
      ])
      expectOneLine(run, `127.0.0.1:${port} is in use by another process (EADDRINUSE)`)
    } finally {
      holder.close()
    }
  }, 60_000)

  it('on a damaged admin.token or secret.key names the file in one line', async () => {
    for (const file of ['admin.token', 'secret.key']) {
      const dataDir = freshDir(`damaged-${file}`)
      writeFileSync(join(dataDir, file), 'not 64 hexadecimal characters\n')
      const run = await exchange(['serve', '--no-simulator', '--port', '0', '--data', dataDir])
      expectOneLine(run, `${join(dataDir, file)} does not hold 64 hexadecimal characters`)
    }
  }, 120_000) // two starts that open the storage first

  it('with --data naming a file says so in one line', async () => {
    const file = join(scratch, 'a-file')
    writeFileSync(file, 'not a directory')
    for (const dataDir of [file, join(file, 'below')]) {
      const run = await exchange(['serve', '--no-simulator', '--port', '0', '--data', dataDir])
      expectOneLine(
        run,
        `cannot make the directory ${dataDir}: it, or a folder above it, is a file`,
      )
    }
  }, 60_000)

  it('with a --host that does not resolve says so in one line', async () => {
    const run = await exchange([
      'serve',
      '--no-simulator',
      '--port',
      '0',
      '--host',
      'no-such-host.invalid', // RFC 2606: never resolves
      '--data',
      freshDir('unresolvable'),
    ])
    expectOneLine(run, '"no-such-host.invalid" does not resolve to an address')
  }, 60_000)

  it('with a bad POLDER_SECRET_KEY is refused before the storage opens, as a configuration error (exit 2)', async () => {
    const dataDir = join(scratch, 'never-made')
    const run = await exchange(['serve', '--no-simulator', '--port', '0', '--data', dataDir], {
      POLDER_SECRET_KEY: 'abc',
    })
    expect(existsSync(dataDir)).toBe(false)
    expect(run.stderr).not.toMatch(stackFrame)
    expect(run.stderr).toMatch(
      /^POLDER_SECRET_KEY must be 64 hexadecimal characters, got 3 characters\nusage:\n/,
    )
    expect(run.code).toBe(2)
  }, 60_000)
})

describe('a fatal fault while serving', () => {
  it('is one JSON line of the log (level fatal, the error and its cause), then exit 70', async () => {
    const servicePath = join(import.meta.dirname, '..', 'src', 'core', 'exchangeService.ts')
    const script = `import { exitOnFatal } from ${JSON.stringify(servicePath)}
      exitOnFatal(new Error('the journal failed', { cause: new Error('connection reset') }))`
    const run = await new Promise<Run>((resolve) => {
      execFile(
        process.execPath,
        ['--input-type=module', '--eval', script],
        { timeout: 60_000 },
        (error, stdout, stderr) => {
          const code = error ? (error as { code?: unknown }).code : 0
          resolve({ stdout, stderr, code: typeof code === 'number' ? code : null })
        },
      )
    })
    expect(run.code).toBe(70)
    expect(run.stderr).toBe('')
    const lines = run.stdout.trimEnd().split('\n')
    expect(lines).toHaveLength(1)
    const line = JSON.parse(lines[0] ?? '')
    expect(line).toMatchObject({
      level: 60,
      pid: expect.any(Number),
      msg: 'fatal: the journal failed',
      err: {
        type: 'Error',
        message: 'the journal failed',
        stack: expect.stringContaining('the journal failed'),
        cause: { type: 'Error', message: 'connection reset' },
      },
    })
    expect(Math.abs(line.time - Date.now())).toBeLessThan(60_000)
  })
})
