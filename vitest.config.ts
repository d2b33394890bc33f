import { defineConfig } from 'vitest/config'

// One runner for the whole repository. Two projects:
// - unit: fast, in-process tests of every package and app (real sockets allowed, loopback only);
// - browser: tests that drive Debian's Chromium through playwright-core (see tests/browser/).
export default defineConfig({
  test: {
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
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['tests/browser/**/*.test.ts', 'apps/*/test-browser/**/*.test.ts'],
          globalSetup: ['tests/browser/site.setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
})
