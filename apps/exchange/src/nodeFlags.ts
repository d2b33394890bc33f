// Node.js flags the server runs with, wherever it is started from (`npm start`, `npm run
// exchange`, the load benchmark). V8 sizes the young generation from the heap limit, so on a
// machine with much memory each semi-space grows to 64 MB: a scavenge then came every ~380 ms at
// 5,000 orders/s and paused the event loop 5-9 ms (p50 6 ms), copying the ~2 MB that the orders
// of those 380 ms leave behind. At 16 MB it comes four times as often and pauses 2 ms (max 4-6),
// for about half as much GC time again in all. Measured on one 2-core machine (2026-11-26, 11
// interleaved pairs of `load.bench.ts --rate 5000`): p99 median 8.6 → 7.6 ms, lower in 8 of the
// 11 pairs; 24,000/s acknowledged the same (20,400-21,500/s either way).
//
// Not here: `--v8-pool-size=1` (one thread for V8's GC helpers and compilers instead of four).
// At capacity it gave the event loop the CPU it waited for (waiting 4-8% of the time instead of
// 16-19%; 15,313 orders/s against 14,515, means of six interleaved pairs on 2026-11-27), but in
// the clean-clone suite run that followed, `npm start` printed nothing for 120 s once (two other
// runs passed). That was not traced to the flag, and it was not kept: see the exchange's
// docs/figures-by-machine.md.
//
// `--wasm-wrapper-tiering-budget` at its largest (`wasmWrapperTierUpOff`): a call from
// WebAssembly into JavaScript first goes through V8's generic wrapper, and after 1,000 calls
// V8 compiles one for that import (`Runtime_TierUpWasmToJSWrapper`). PGlite, the embedded
// database, calls its JavaScript imports (its file system) constantly: 31 such compilations a
// database opened (counted with a gdb breakpoint on that function, 186 for six openings). In Node
// 24.21 (V8 13.6) one of them crashed a process that had PGlite running on several threads: a
// segmentation fault in `NativeModule::FreeCode`, from `WasmEngine::FreeDeadCode` at the end of
// the compilation's `WasmCodeRefScope` (seen in a core dump of a vitest worker in
// `apps/exchange/test/storage/storage.test.ts`, one run of the exchange's tests in three; the same
// signal had stopped CI runs twice before, in `simulator.test.ts` and `halt.test.ts`). With the
// budget out of reach the breakpoint is never hit, and PGlite ran as fast (six openings with 300
// inserts each, five times: 22.7-22.8 s without the flag, 22.1-23.6 with it). The unit tests'
// workers run with it too (vitest.config.ts).
//
// Where an import cannot reach, the flags are written out: both `exchange` package scripts and
// the shebang of `main.ts` (test/nodeFlags.test.ts checks them). Change them together.
export const wasmWrapperTierUpOff = '--wasm-wrapper-tiering-budget=2147483647'
export const serverNodeFlags: readonly string[] = ['--max-semi-space-size=16', wasmWrapperTierUpOff]
