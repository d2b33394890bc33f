// The bootstrap's fix to the installed PostgreSQL driver (scripts/patchPostgres.mjs): applied to
// postgres.js 3.4.9 once, left alone on another version or on text it does not expect; and the
// driver this suite runs on is patched.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
// @ts-expect-error: plain JavaScript of the bootstrap, without types
import { patchPostgres } from '../../scripts/patchPostgres.mjs'

const root = join(import.meta.dirname, '..', '..')
const scratch = mkdtempSync(join(tmpdir(), 'polder-patch-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** The three places of the driver's connection.js that the fix changes, as released. */
const released = [
  'function Connection() {',
  '  function nextWrite(fn) {',
  '    const x = socket.write(chunk, fn)',
  '    nextWriteTimer !== null && clearImmediate(nextWriteTimer)',
  '    chunk = nextWriteTimer = null',
  '  }',
  '  function terminate() {',
  '    clearImmediate(nextWriteTimer)',
  '    if (socket) {',
  '    }',
  '  }',
  '  async function closed(hadError) {',
  '    clearImmediate(nextWriteTimer)',
  "    socket.removeListener('data', data)",
  '  }',
  '}',
  '',
].join('\n')

/** A driver as installed under a new root: its version and its ESM connection.js. */
function installed(version: string, connection = released): string {
  const at = mkdtempSync(join(scratch, 'root-'))
  const packageDir = join(at, 'node_modules', 'postgres')
  mkdirSync(join(packageDir, 'src'), { recursive: true })
  writeFileSync(join(packageDir, 'package.json'), JSON.stringify({ name: 'postgres', version }))
  writeFileSync(join(packageDir, 'src', 'connection.js'), connection)
  return at
}
const connectionOf = (at: string) =>
  readFileSync(join(at, 'node_modules', 'postgres', 'src', 'connection.js'), 'utf8')

describe('the PostgreSQL driver fix', () => {
  it('guards the deferred write and clears it on close and termination, once', () => {
    const at = installed('3.4.9')
    expect(patchPostgres(at)).toBe('postgres.js 3.4.9: patched (src)')
    const patched = connectionOf(at)
    expect(patched).toContain(
      "    if (!socket) { // polder-patch: porsager/postgres#1154, #1208\n      chunk = nextWriteTimer = null\n      error(Errors.connection('CONNECTION_CLOSED', options))\n      return false\n    }\n    const x = socket.write(chunk, fn)",
    )
    expect(patched.match(/chunk = nextWriteTimer = null \/\/ polder-patch/g)).toHaveLength(2)
    expect(patchPostgres(at)).toBe('postgres.js 3.4.9: patched already')
    expect(connectionOf(at)).toBe(patched)
  })

  it('leaves another version, and text it does not expect, as they are', () => {
    const newer = installed('3.4.10')
    expect(patchPostgres(newer)).toMatch(/^postgres\.js 3\.4\.10 is not 3\.4\.9: left as it is/)
    expect(connectionOf(newer)).toBe(released)
    const changed = released.replace('    const x = socket.write(chunk, fn)', '    write it')
    const other = installed('3.4.9', changed)
    expect(patchPostgres(other)).toMatch(/does not read as expected \(a deferred write/)
    expect(connectionOf(other)).toBe(changed)
    expect(patchPostgres(join(scratch, 'nowhere'))).toMatch(/not installed/)
  })

  it('is applied to the driver this suite runs on (by the bootstrap)', () => {
    const { version } = JSON.parse(
      readFileSync(join(root, 'node_modules', 'postgres', 'package.json'), 'utf8'),
    )
    if (version !== '3.4.9') return // a later release: the script leaves it alone (tested above)
    for (const flavour of ['src', 'cjs/src', 'cf/src'])
      expect(
        readFileSync(join(root, 'node_modules', 'postgres', flavour, 'connection.js'), 'utf8'),
        flavour,
      ).toContain('polder-patch')
  })
})
