import { defineConfig } from 'vitest/config'
import { wasmWrapperTierUpOff } from './apps/exchange/src/nodeFlags.ts'

// One runner for the whole repository. Two projects:
// - unit: fast, in-process tests of every package and app (real sockets allowed, loopback only);
// - browser: tests that drive Debian's Chromium through playwright-core (see tests/browser/).
export default defineConfig({
  test: {
    // Two files at a time on the two cores (Vitest's default is one fewer than the cores: one
    // here). Measured on a slow machine of the kind: the whole suite in 1,066 s of Vitest's own
    // time against 1,395-1,655 s one at a time.
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'packages/*/test/**/*.test.{ts,tsx}',
            'apps/*/test/**/*.test.{ts,tsx}',
            'tests/unit/**/*.test.ts',
            'tests/integration/**/*.test.ts',
          ],
          // Some tests without a timeout of their own take 10-16 s on a slow machine with the
          // other worker busy (the first PGlite opens of storage.test.ts, the archives' listings):
          // three times that before one counts as hung.
          testTimeout: 60_000,
          // expect.poll gives up after 1 s by default: a round trip or two on a slow machine under
          // the other worker can take that long.
          expect: { poll: { timeout: 10_000 } },
          // A hook that starts a server and its accounts takes 2-5 s alone, and twice that while
          // the other worker and a slow machine's neighbours take the CPU.
          hookTimeout: 60_000,
          // Their servers run PGlite on threads: with V8's tier-up of wasm-to-JS wrappers off,
          // which crashed one run of the exchange's tests in three (apps/exchange/src/nodeFlags.ts).
          execArgv: [wasmWrapperTierUpOff],
        },
      },
      {
        test: {
          name: 'browser',
          include: ['tests/browser/**/*.test.ts', 'apps/*/test-browser/**/*.test.ts'],
          globalSetup: ['tests/browser/site.setup.ts'],
          testTimeout: 120_000,
          expect: { poll: { timeout: 10_000 } },
          hookTimeout: 180_000,
          // Alongside the unit files rather than after them: files without file parallelism
          // wait for every other file (the site's page checks alone take three minutes).
        },
      },
    ],
  },
})
