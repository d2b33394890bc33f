import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, test } from 'vitest'
import * as core from '../src/index.ts'
import * as react from '../src/react/index.ts'

// STYLE habit 1: the core imports no React; the bindings live in their own entry.

const sourceRoot = join(import.meta.dirname, '..', 'src')

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(entry.name) ? [path] : []
  })
}

describe('package boundaries', () => {
  test('the core imports no React (every source file outside src/react)', () => {
    const coreFiles = sourceFiles(sourceRoot).filter(
      (path) => !relative(sourceRoot, path).startsWith('react'),
    )
    expect(coreFiles.length).toBeGreaterThan(20)
    for (const path of coreFiles) {
      const text = readFileSync(path, 'utf8')
      expect(text, relative(sourceRoot, path)).not.toMatch(
        /from ['"](react|react-dom)(\/[^'"]*)?['"]/,
      )
      expect(text, relative(sourceRoot, path)).not.toMatch(/from ['"]\.\.?\/(\.\.\/)*react\//)
    }
  })

  test('the core touches no Node API', () => {
    for (const path of sourceFiles(sourceRoot)) {
      expect(readFileSync(path, 'utf8'), relative(sourceRoot, path)).not.toMatch(
        /from ['"]node:|process\.|require\(/,
      )
    }
  })

  test('the public exports of both entries', () => {
    expect(Object.keys(core).sort()).toMatchSnapshot()
    expect(Object.keys(react).sort()).toEqual([
      'PolderClientProvider',
      'useAuth',
      'useBestAsk',
      'useBestBid',
      'useConnectionStatus',
      'useFees',
      'useMobileOrderBook',
      'useOpenOrders',
      'useOrderBook',
      'usePolderClient',
      'usePolderStore',
      'useSocketConnection',
      'useStoreSelector',
      'useTicker24h',
    ])
  })
})
