// `npm start` end to end: the real command, through the bootstrap, on a free port. Every URL it
// prints must answer; SIGTERM stops it cleanly.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..', '..')
const dataDir = mkdtempSync(join(tmpdir(), 'polder-start-'))
let child: ChildProcess | undefined
let printedUrls: string[] = []

afterAll(() => {
  // Whatever of the group is left (none once the Ctrl+C test has waited for it: npm ended by a
  // signal has no exit code, so the group is asked, and a group already gone is no error).
  if (child?.pid !== undefined)
    try {
      process.kill(-child.pid, 'SIGKILL')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
    }
  rmSync(dataDir, { recursive: true, force: true })
})

function waitForOutput(process: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = ''
    const timer = setTimeout(
      () => reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    )
    const onData = (chunk: Buffer): void => {
      output += chunk.toString()
      if (pattern.test(output)) {
        clearTimeout(timer)
        resolve(output)
      }
    }
    process.stdout?.on('data', onData)
    process.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    process.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`npm start exited with ${code} before printing its URLs:\n${output}`))
    })
  })
}

/**
 * The processes of a process group that still run (from /proc): zombies not yet reaped are done,
 * and esbuild, a helper of the site's build that ends when its parent does, is left out.
 */
function runningInGroup(groupId: number): string[] {
  const running: string[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue // ended meanwhile
    }
    // pid (comm) state ppid pgrp ...: comm may hold spaces, so the fields are read after its ')'.
    const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
    const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (Number(group) === groupId && state !== 'Z' && command !== 'esbuild')
      running.push(`${entry} ${command}`)
  }
  return running
}

describe('npm start', () => {
  it('prints the local URLs only once they answer, and every printed URL answers', async () => {
    child = spawn('npm', ['start', '--', '--port', '0'], {
      cwd: root,
      detached: true, // its own process group, so the test can end exactly what it started
      env: { ...process.env, LOG_LEVEL: 'warn', POLDER_DATA: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    // As long as start.ts gives a part to be ready (its readyTimeoutMs): the site's build took
    // over 120 s in one CI run, on a slow machine with the other test worker busy.
    const output = await waitForOutput(child, /Press Ctrl\+C to stop\./, 300_000)
    expect(output).toContain('Building the public site')
    const block = output.slice(output.indexOf('Polder is running:'))
    const urls = [...block.matchAll(/\s((?:https?|wss?):\/\/\S+)/g)].map((match) => match[1]!)
    expect(urls.length).toBeGreaterThanOrEqual(2)
    printedUrls = urls
    for (const url of urls) {
      if (url.startsWith('ws')) {
        const socket = new WebSocket(url)
        const reply = await new Promise<string>((resolve, reject) => {
          socket.onopen = () => socket.send('{"action":"getTime","requestId":1}')
          socket.onmessage = (event) => resolve(String(event.data))
          socket.onerror = () => reject(new Error(`${url} did not accept a WebSocket`))
        })
        socket.close()
        expect(JSON.parse(reply)).toMatchObject({ action: 'getTime', requestId: 1 })
      } else {
        const response = await fetch(url)
        expect(response.status, url).toBe(200)
      }
    }
  }, 330_000)

  it('stops every part on Ctrl+C (SIGINT to its process group): npm returns once nothing answers', async () => {
    expect(child?.pid).toBeDefined()
    const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()))
    process.kill(-child!.pid!, 'SIGINT')
    await exited
    // npm gives the prompt back only after the parts have stopped (bootstrap.mjs waits for its
    // job; it used to end at once, npm with it, while the exchange was still flushing): whoever
    // starts it again at once finds the ports and the data directory free.
    expect(runningInGroup(child!.pid!), 'still running when npm returned').toEqual([])
    const httpUrls = printedUrls.filter((url) => url.startsWith('http'))
    expect(httpUrls.length).toBeGreaterThan(0)
    for (const url of httpUrls) {
      await expect(fetch(url, { signal: AbortSignal.timeout(2_000) }), url).rejects.toThrow()
    }
    // What is left of the group (a part's own helpers, such as the site's esbuild, reaped late)
    // goes soon after.
    const groupAlive = () => {
      try {
        process.kill(-child!.pid!, 0)
        return true
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'EPERM'
      }
    }
    const deadline = Date.now() + 15_000
    while (groupAlive() && Date.now() < deadline) await new Promise((done) => setTimeout(done, 50))
    expect(groupAlive(), 'a part of npm start still runs 15 s after Ctrl+C').toBe(false)
  }, 30_000)
})
