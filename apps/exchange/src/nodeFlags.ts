// Node.js flags the server runs with, wherever it is started from (`npm start`, `npm run
// exchange`, the load benchmark). V8 sizes the young generation from the heap limit, so on a
// machine with much memory each semi-space grows to 64 MB: a scavenge then came every ~380 ms at
// 5,000 orders/s and paused the event loop 5-9 ms (p50 6 ms), copying the ~2 MB that the orders
// of those 380 ms leave behind. At 16 MB it comes four times as often and pauses 2 ms (max 4-6),
// for about half as much GC time again in all. Measured on one 2-core machine (2026-11-26, 11
// interleaved pairs of `load.bench.ts --rate 5000`): p99 median 8.6 → 7.6 ms, lower in 8 of the
// 11 pairs; 24,000/s acknowledged the same (20,400-21,500/s either way).
//
// One thread for V8's background work (GC helpers, compilers) instead of four: on two cores the
// event loop is what limits the server, and four helper threads took a third of a core from it
// at capacity, the main thread waiting for a CPU 16-19% of the time. With one: 4-8%, and 15,313
// orders acknowledged a second against 14,515 (means of six interleaved pairs, `load.bench.ts
// --rate 30000 --in-flight-max 200`, higher in four); at 5,000/s p99 32-49 ms against 37-42
// (four pairs, lower in three), on a slow machine (2026-11-27). Startup is the same (8.5-10.4 s
// on a new data directory either way). On a machine with many cores, raise it.
//
// Where an import cannot reach, the flags are written out: both `exchange` package scripts and
// the shebang of `main.ts` (test/nodeFlags.test.ts checks them). Change them together.
export const serverNodeFlags: readonly string[] = ['--max-semi-space-size=16', '--v8-pool-size=1']
