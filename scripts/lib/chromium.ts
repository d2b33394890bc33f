// Browser tests drive Debian's Chromium: Playwright's own browser download cannot work on
// these machines. This module finds it, installs it with apt-get when it is missing and we
// may, and otherwise explains in words what to do.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

// The flags every launch uses: the machine's network is closed, so anything that phones home
// is switched off, and we run as root inside a container.
export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

export class ChromiumMissingError extends Error {
  override name = 'ChromiumMissingError'
}

export function chromiumMissingMessage(reason: string): string {
  return (
    `Chromium was not found at ${chromiumPath} (${reason}). Browser tests need Debian's ` +
    'chromium package: run `apt-get update && apt-get install -y chromium` as root, ' +
    'or set CHROMIUM_PATH to a Chromium binary.'
  )
}

/** Returns the path of a usable Chromium, installing Debian's package when possible. */
export function ensureChromium(log: (line: string) => void = console.log): string {
  if (existsSync(chromiumPath)) return chromiumPath
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
  const hasApt = existsSync('/usr/bin/apt-get')
  if (!isRoot || !hasApt) {
    throw new ChromiumMissingError(
      chromiumMissingMessage(isRoot ? 'apt-get is not available' : 'not root, cannot apt-get'),
    )
  }
  log('Installing Debian chromium for the browser tests (apt-get) ...')
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', 'chromium'],
  ]) {
    const result = spawnSync('apt-get', args, { stdio: 'inherit', env })
    if (result.status !== 0) {
      throw new ChromiumMissingError(chromiumMissingMessage(`apt-get ${args[0]} failed`))
    }
  }
  if (!existsSync(chromiumPath)) {
    throw new ChromiumMissingError(chromiumMissingMessage('apt-get finished without it'))
  }
  return chromiumPath
}
