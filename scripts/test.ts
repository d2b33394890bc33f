// `npm test` after bootstrap: the whole suite, in order of cost.
//   1. typecheck of every workspace (and the root tooling),
//   2. lint and format check (Biome),
//   3. every Vitest test: unit and integration, then browser tests on Debian's Chromium.
// It ends with one line `N passed, N failed[, N skipped]` counting typecheck projects and lint
// as one check each plus every test, and exits non-zero when anything failed or no test ran.
// Extra arguments go to Vitest, e.g. `npm test -- --project unit`.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { ChromiumMissingError, ensureChromium } from './lib/chromium.ts'
import { CrashLines } from './lib/crashLines.ts'

const root = join(import.meta.dirname, '..')
const reportPath = join(root, '.cache', 'vitest-report.json')
const vitestArgs = process.argv.slice(2)

type Check = { name: string; ok: boolean; seconds: number }
const checks: Check[] = []

function step(name: string, command: string, args: string[]): boolean {
  const startedMs = performance.now()
  console.log(`\n▶ ${name}`)
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' })
  const ok = result.status === 0
  const seconds = (performance.now() - startedMs) / 1000
  checks.push({ name, ok, seconds })
  console.log(`${ok ? '✔' : '✘'} ${name} (${seconds.toFixed(1)} s)`)
  return ok
}

function workspaces(): { dir: string; name: string; scripts: Record<string, string> }[] {
  const found = []
  for (const group of ['packages', 'apps']) {
    const groupDir = join(root, group)
    if (!existsSync(groupDir)) continue
    for (const entry of readdirSync(groupDir).sort()) {
      const manifest = join(groupDir, entry, 'package.json')
      if (!existsSync(manifest)) continue
      const pkg = JSON.parse(readFileSync(manifest, 'utf8'))
      found.push({ dir: join(group, entry), name: pkg.name, scripts: pkg.scripts ?? {} })
    }
  }
  return found
}

// 1. Typecheck. A workspace with its own `typecheck` script (e.g. Astro's checker) runs that;
// otherwise each of its tsconfig files is checked with tsc.
step('typecheck: root tooling', 'tsc', ['-p', 'tsconfig.json'])
for (const ws of workspaces()) {
  if (ws.scripts.typecheck) {
    step(`typecheck: ${ws.name}`, 'npm', ['run', '--silent', 'typecheck', '-w', ws.name])
    continue
  }
  for (const config of ['tsconfig.json', 'tsconfig.test.json']) {
    if (existsSync(join(root, ws.dir, config))) {
      step(`typecheck: ${ws.dir}/${config}`, 'tsc', ['-p', join(ws.dir, config)])
    }
  }
}

// 2. Lint and formatting, read-only (CI mode).
step('lint: biome ci', 'biome', ['ci', '--reporter=summary', '.'])

// 3. Tests. Chromium first, so a missing browser is said plainly before the browser tests fail.
try {
  ensureChromium()
} catch (error) {
  if (!(error instanceof ChromiumMissingError)) throw error
  console.error(`\n${error.message}\nThe browser tests will fail.`)
}
mkdirSync(join(root, '.cache'), { recursive: true })
rmSync(reportPath, { force: true })
console.log('\n▶ vitest')
// Its stderr passes through as it comes, and through CrashLines, which keeps what a crashing test
// process printed (see crashLines.ts) to repeat it beside the summary.
const crashes = new CrashLines()
const vitestRun = await new Promise<{ status: number | null }>((resolve, reject) => {
  const child = spawn(
    'vitest',
    [
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${reportPath}`,
      ...vitestArgs,
    ],
    {
      cwd: root,
      stdio: ['inherit', 'inherit', 'pipe'],
      env: { ...process.env, FORCE_COLOR: process.env.CI ? '0' : '1' },
    },
  )
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (text: string) => {
    process.stderr.write(text)
    crashes.feed(text)
  })
  // A signal sent to this process alone (npm passes SIGTERM on) goes to vitest, which stops its
  // test processes and servers; the summary below then says the run did not finish.
  const passOn = (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
  }
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, passOn)
  child.once('error', reject)
  child.once('close', (status) => resolve({ status }))
})

type VitestReport = {
  numPassedTests: number
  numFailedTests: number
  numPendingTests: number
  numTodoTests: number
  testResults: { name: string; status: string; assertionResults: { status: string }[] }[]
}
let tests = { passed: 0, failed: 0, skipped: 0 }
if (existsSync(reportPath)) {
  const report = JSON.parse(readFileSync(reportPath, 'utf8')) as VitestReport
  // A file that fails to load (or fails outside any test) has no failed test, but is a failure.
  const brokenFiles = report.testResults.filter(
    (file) =>
      file.status === 'failed' && !file.assertionResults.some((test) => test.status === 'failed'),
  )
  for (const file of brokenFiles) console.error(`failed file: ${file.name}`)
  tests = {
    passed: report.numPassedTests,
    failed: report.numFailedTests + brokenFiles.length,
    skipped: report.numPendingTests + report.numTodoTests,
  }
} else {
  console.error('vitest wrote no report: it did not run to the end.')
  tests.failed += 1
}
// Vitest also fails a run for errors outside any test (an unhandled rejection, a leaked
// handle); its exit status is the final word, whatever the counts say.
if (vitestRun.status !== 0 && tests.failed === 0) {
  console.error(
    `vitest exited with status ${vitestRun.status} (errors outside the tests; see above).`,
  )
  tests.failed += 1
}
if (tests.passed === 0) {
  console.error('No test ran: that is a failure, not a pass.')
  tests.failed += 1
}

const crashLines = crashes.lines()
if (crashLines.length > 0) {
  console.error('\nA test process crashed; what it printed:')
  for (const line of crashLines) console.error(`  ${line}`)
}

const checksFailed = checks.filter((check) => !check.ok)
for (const check of checksFailed) console.error(`failed check: ${check.name}`)
const passed = tests.passed + checks.length - checksFailed.length
const failed = tests.failed + checksFailed.length
console.log(
  `\n${passed} passed, ${failed} failed${tests.skipped ? `, ${tests.skipped} skipped` : ''}`,
)
process.exit(failed === 0 ? 0 : 1)
