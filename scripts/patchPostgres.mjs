// A fix to the installed PostgreSQL driver (postgres.js 3.4.9, its newest release), applied by
// the bootstrap after every install until a release carries one. This file must stay
// dependency-free and plain JavaScript, as the bootstrap that runs it.
//
// The driver defers a small write to the socket with setImmediate. When PostgreSQL ends the
// connection first (pg_terminate_backend, a restart, a pooler), the deferred write finds the
// socket gone and throws an uncaught TypeError ("Cannot read properties of null (reading
// 'write')") that ends the process (upstream issues #1154 and #1208 of porsager/postgres, with
// guards proposed and none released). A close also leaves the deferred write's timer and bytes
// behind, so the next connection could start with a stale half-written message. The fix, as the
// proposed ones: a write with no socket settles the pending queries with CONNECTION_CLOSED (so
// their callers retry or fail in words), and a close drops the deferred bytes and timer.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const marker = 'polder-patch'
const patchedVersion = '3.4.9'

const replacements = [
  {
    what: 'a deferred write on a closed connection',
    from: '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)\n',
    to:
      '  function nextWrite(fn) {\n' +
      `    if (!socket) { // ${marker}: porsager/postgres#1154, #1208\n` +
      '      chunk = nextWriteTimer = null\n' +
      "      error(Errors.connection('CONNECTION_CLOSED', options))\n" +
      '      return false\n' +
      '    }\n' +
      '    const x = socket.write(chunk, fn)\n',
  },
  {
    what: "a close's leftover deferred write",
    from: "    clearImmediate(nextWriteTimer)\n    socket.removeListener('data', data)\n",
    to:
      '    clearImmediate(nextWriteTimer)\n' +
      `    chunk = nextWriteTimer = null // ${marker}\n` +
      "    socket.removeListener('data', data)\n",
  },
  {
    what: "a termination's leftover deferred write",
    from: '    clearImmediate(nextWriteTimer)\n    if (socket) {\n',
    to:
      '    clearImmediate(nextWriteTimer)\n' +
      `    chunk = nextWriteTimer = null // ${marker}\n` +
      '    if (socket) {\n',
  },
]

/**
 * Patches the driver under `root`'s node_modules; returns what it did, in words. Leaves another
 * version alone, and a file whose text is not the one expected (it says so).
 */
export function patchPostgres(root) {
  const packageDir = join(root, 'node_modules', 'postgres')
  const manifest = join(packageDir, 'package.json')
  if (!existsSync(manifest)) return 'postgres.js is not installed: nothing to patch'
  const { version } = JSON.parse(readFileSync(manifest, 'utf8'))
  if (version !== patchedVersion)
    return `postgres.js ${version} is not ${patchedVersion}: left as it is (see scripts/patchPostgres.mjs)`
  const done = []
  for (const flavour of ['src', 'cjs/src', 'cf/src']) {
    const file = join(packageDir, flavour, 'connection.js')
    if (!existsSync(file)) continue
    let text = readFileSync(file, 'utf8')
    if (text.includes(marker)) continue
    for (const { what, from, to } of replacements) {
      if (text.split(from).length !== 2)
        return `postgres.js ${flavour}/connection.js does not read as expected (${what}): not patched`
      text = text.replace(from, to)
    }
    writeFileSync(file, text)
    done.push(flavour)
  }
  return done.length === 0
    ? `postgres.js ${version}: patched already`
    : `postgres.js ${version}: patched (${done.join(', ')})`
}
