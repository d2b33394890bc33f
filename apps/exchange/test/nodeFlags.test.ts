// The server's Node.js flags are written out where an import cannot reach them: the `exchange`
// scripts of both package.json files and the shebang of main.ts. They must say the same.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { serverNodeFlags, wasmWrapperTierUpOff } from '../src/nodeFlags.ts'

const app = join(import.meta.dirname, '..')
const script = (packageJson: string) =>
  (JSON.parse(readFileSync(packageJson, 'utf8')) as { scripts: Record<string, string> }).scripts
    .exchange

describe('the server starts with the same Node.js flags however it is started', () => {
  it('package scripts and the shebang pass exactly serverNodeFlags', () => {
    const flags = serverNodeFlags.join(' ')
    expect(script(join(app, 'package.json'))).toBe(`node ${flags} src/main.ts`)
    expect(script(join(app, '../../package.json'))).toBe(`node ${flags} apps/exchange/src/main.ts`)
    const shebang = readFileSync(join(app, 'src/main.ts'), 'utf8').split('\n')[0]
    expect(shebang).toBe(`#!/usr/bin/env -S node ${flags}`)
  })

  it('the unit tests run with the flag that keeps V8 from compiling wasm-to-JS wrappers', () => {
    // Their servers run PGlite in this process (vitest.config.ts passes it to every worker).
    expect(process.execArgv).toContain(wasmWrapperTierUpOff)
    expect(serverNodeFlags).toContain(wasmWrapperTierUpOff)
  })
})
