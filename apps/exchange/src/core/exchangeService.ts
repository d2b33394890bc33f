// The core behind the journal: a command is applied (synchronously, so every command sees the
// state the previous one left), journaled, and acknowledged only once durable; its events are
// published only then too, so nobody ever sees a trade that a crash could take back. On start
// the journal is replayed through a fresh core, which rebuilds books, orders, balances and
// nonces exactly.
import { writeSync } from 'node:fs'
import { hostname } from 'node:os'
import type { EngineEvent, MarketConfig } from '@polder/engine'
import type { Journal } from '../storage/journal.ts'
import type { SnapshotStore } from '../storage/snapshotStore.ts'
import {
  type CoreCommand,
  type CoreOutcome,
  type CoreSnapshot,
  ExchangeCore,
} from './exchangeCore.ts'
import { RawJson, stringifyInChunks } from './stringifyInSlices.ts'

export type EventListener = (events: readonly EngineEvent[], command: CoreCommand) => void
export type OutcomeListener = (command: CoreCommand, outcome: CoreOutcome) => void

const replayPageRecordsMax = 10_000
/**
 * A snapshot is taken after this many journaled commands, but not sooner than
 * `snapshotIntervalMinMs` after the previous one: a restart replays at most about this many
 * commands, or a minute of them under heavy load. (Writing a snapshot costs CPU in proportion to
 * the state; measured at 18,000 orders/s, one every 100,000 commands took a sixth of the
 * server's CPU.)
 */
export const snapshotEveryRecords = 100_000
export const snapshotIntervalMinMs = 60_000
/**
 * A snapshot is written 1 ms at a time with 3 ms of rest between (a quarter of the event loop
 * at most), so the exchange keeps up with its load while one is written; it then takes about
 * four times its CPU time (seconds) to finish, which only delays when the journal can be pruned.
 */
const snapshotSliceMs = 1
const snapshotRestMs = 3

export class JournalReplayError extends Error {
  override name = 'JournalReplayError'
}

/** Memory and journal may disagree: nothing more may be accepted. */
export class ExchangeHaltedError extends Error {
  override name = 'ExchangeHaltedError'
}

/**
 * What happens when the core throws (a broken invariant) or the journal fails: the default
 * stops the process, as a half-applied command must never be built on (STYLE habit 5); a
 * restart replays the journal, which holds only fully applied commands.
 */
export type FatalHandler = (error: Error) => void
export const exitOnFatal: FatalHandler = (error) => {
  // One line of the server's log (pino's fields; 60 is its level fatal), written before the
  // process ends on the next line. The log's own logger is not made yet when the storage fails
  // at start, hence the line is written here.
  const line = {
    level: 60,
    time: Date.now(),
    pid: process.pid,
    hostname: hostname(),
    err: serializedError(error),
    msg: `fatal: ${error.message}`,
  }
  writeSync(1, `${JSON.stringify(line)}\n`)
  process.exit(70)
}

type SerializedError = { type: string; message: string; stack?: string; cause?: SerializedError }

function serializedError(error: Error, depth = 0): SerializedError {
  const cause = error.cause instanceof Error && depth < 5 ? error.cause : undefined
  return {
    type: error.name,
    message: error.message,
    ...(error.stack === undefined ? {} : { stack: error.stack }),
    ...(cause === undefined ? {} : { cause: serializedError(cause, depth + 1) }),
  }
}

export class ExchangeService {
  readonly core: ExchangeCore
  readonly #journal: Journal
  /** The durable promise of the last command journaled (see `appliedDurable`). */
  #lastDurable: Promise<void> = Promise.resolve()
  readonly #listeners: EventListener[] = []
  readonly #outcomeListeners: OutcomeListener[] = []
  readonly #durableListeners: ((command: CoreCommand) => void)[] = []
  readonly #snapshotFailedListeners: ((error: unknown) => void)[] = []
  /** Commands journaled since start (for metrics). */
  commandsJournaled = 0
  /** How the state was rebuilt at start: from which snapshot, and how many records replayed. */
  startup = { snapshotSeq: 0, replayedRecords: 0 }

  readonly #onFatal: FatalHandler
  readonly #snapshots: SnapshotStore
  #halted: Error | undefined
  #sinceSnapshot = 0
  /** When the last snapshot was started (server clock). */
  #lastSnapshotMs = Number.NEGATIVE_INFINITY
  #snapshotting: Promise<void> | undefined
  readonly #nowMs: () => number

  private constructor(
    core: ExchangeCore,
    journal: Journal,
    snapshots: SnapshotStore,
    onFatal: FatalHandler,
    nowMs: () => number,
  ) {
    this.core = core
    this.#journal = journal
    this.#snapshots = snapshots
    this.#onFatal = onFatal
    this.#nowMs = nowMs
  }

  /** Replays the journal, then lists every market of `markets` that the journal did not have. */
  static async open(
    snapshots: SnapshotStore,
    journal: Journal,
    markets: readonly MarketConfig[],
    clockMs: () => number,
    onFatal: FatalHandler = exitOnFatal,
  ): Promise<ExchangeService> {
    const snapshot = await snapshots.latest()
    const core = new ExchangeCore(snapshot?.state as CoreSnapshot | undefined)
    let afterSeq = snapshot?.seq ?? 0
    let replayedRecords = 0
    for (;;) {
      const page = await journal.read(afterSeq, replayPageRecordsMax)
      for (const entry of page) {
        const outcome = core.apply(entry.payload as CoreCommand)
        if (!outcome.ok) {
          throw new JournalReplayError(
            `journal record ${entry.seq} (${entry.kind}) was refused on replay: ${outcome.error}`,
          )
        }
        afterSeq = entry.seq
        replayedRecords += 1
      }
      if (page.length < replayPageRecordsMax) break
    }
    const service = new ExchangeService(core, journal, snapshots, onFatal, clockMs)
    service.startup = { snapshotSeq: snapshot?.seq ?? 0, replayedRecords }
    const nowMs = clockMs()
    // Submitted together (the core applies them in order as they are submitted), so the journal
    // commits a first start's 200 listings in one batch instead of one commit each.
    const listed = markets
      .filter((config) => core.engine.market(config.market) === null)
      .map(async (config) => {
        const outcome = await service.submit({ type: 'addMarket', timestamp: nowMs, config })
        if (!outcome.ok) throw new Error(`market ${config.market} refused: ${outcome.error}`)
      })
    await Promise.all(listed)
    return service
  }

  onEvents(listener: EventListener): void {
    this.#listeners.push(listener)
  }

  /** Called for every submitted command once it is applied, before it is durable (metrics; the order archive; book flushes). */
  onOutcome(listener: OutcomeListener): void {
    this.#outcomeListeners.push(listener)
  }

  /** Told of a periodic snapshot that failed (the journal is whole; a later one is tried). */
  onSnapshotFailed(listener: (error: unknown) => void): void {
    this.#snapshotFailedListeners.push(listener)
  }

  /** Called for every accepted command once it is durable, whether or not it had events. */
  onDurable(listener: (command: CoreCommand) => void): void {
    this.#durableListeners.push(listener)
  }

  /** Applies, journals and, once durable, publishes. Refusals are answered at once. */
  async submit(submitted: CoreCommand): Promise<CoreOutcome> {
    if (this.#halted)
      throw new ExchangeHaltedError('the exchange has halted', { cause: this.#halted })
    // The core's time never goes back: a clock stepped back (NTP, a resumed VM) would stamp a
    // trade before the one it follows, and the archives find a window's trades and fills by
    // their ids, the candles take a trade only into the newest. Such a command is stamped at the
    // newest trade's time, and journaled so.
    const floorMs = this.core.stats.newestTradeMs
    const command = submitted.timestamp < floorMs ? { ...submitted, timestamp: floorMs } : submitted
    if (command.type !== 'cancelExpiredGroup') {
      this.#carryOutExpiredCountdowns(command.timestamp)
      // A cancel that failed halted the exchange: nothing may be journaled after it.
      if (this.#halted)
        throw new ExchangeHaltedError('the exchange has halted', { cause: this.#halted })
    }
    let outcome: CoreOutcome
    let durable: Promise<void>
    try {
      outcome = this.core.apply(command)
      for (const listener of this.#outcomeListeners) listener(command, outcome)
      if (!outcome.ok) return outcome
      durable = this.#journal.append({ kind: command.type, payload: command }).durable
      this.#lastDurable = durable
    } catch (error) {
      throw this.#halt(error as Error)
    }
    this.commandsJournaled += 1
    this.#sinceSnapshot += 1
    if (
      this.#sinceSnapshot >= snapshotEveryRecords &&
      this.#snapshotting === undefined &&
      this.#nowMs() - this.#lastSnapshotMs >= snapshotIntervalMinMs
    ) {
      // A snapshot that fails (on PostgreSQL, a statement cut off) loses nothing: the journal
      // holds every command, and the next one is tried after as many again.
      this.#snapshotting = this.snapshot()
        .catch((error: unknown) => {
          for (const listener of this.#snapshotFailedListeners) listener(error)
        })
        .finally(() => {
          this.#snapshotting = undefined
        })
    }
    try {
      await durable
    } catch (error) {
      throw this.#halt(error as Error)
    }
    // Every listener hears of a durable command, whatever another did (the archives and the
    // market data must not miss one); the first failure is then the caller's.
    let failed: { error: unknown } | undefined
    if (outcome.events.length > 0)
      for (const listener of this.#listeners)
        try {
          listener(outcome.events, command)
        } catch (error) {
          failed ??= { error }
        }
    for (const listener of this.#durableListeners)
      try {
        listener(command)
      } catch (error) {
        failed ??= { error }
      }
    if (failed !== undefined) throw failed.error
    return outcome
  }

  /**
   * Resolves once every command applied so far is durable (the journal commits in order): a
   * read of the state taken now and answered after this shows nothing a crash could take back.
   * Rejects, as `submit` does, if the journal has failed.
   */
  appliedDurable(): Promise<void> {
    return this.#lastDurable
  }

  /**
   * Cancels the groups whose cancel-on-disconnect countdown ran out by `timestamp` before the
   * command of that time is applied, each as its own journaled command (as the countdown task
   * does every 100 ms), so that no order of theirs trades after its deadline, and a replay
   * applies the same cancels before the same command. Their replies go nowhere: a failure halts
   * the exchange in `submit`, and `submit` then refuses the command that came after them.
   */
  #carryOutExpiredCountdowns(timestamp: number): void {
    for (const { accountId, codGroupId } of this.core.expiredCancelDeadlines(timestamp)) {
      this.submit({ type: 'cancelExpiredGroup', timestamp, accountId, codGroupId }).catch(() => {})
    }
  }

  #halt(error: Error): Error {
    this.#halted ??= error
    this.#onFatal(error)
    return new ExchangeHaltedError('the exchange has halted', { cause: error })
  }

  /**
   * Saves the core's state, valid at the last applied journal record. The state is captured at
   * once (between commands), then written out a slice at a time so the exchange keeps serving
   * while a large state is serialised (measured: 66 MB of state held the event loop for 0.36 s
   * in one piece). It is stored only after every record up to it is durable, so a snapshot
   * never holds a command the journal could lose.
   */
  async snapshot(): Promise<void> {
    // One at a time: a clean stop's snapshot waits for a periodic one still being written (two
    // at one journal position would write the same file). A periodic one never fails here.
    if (this.#snapshotting !== undefined) await this.#snapshotting
    this.#sinceSnapshot = 0
    this.#lastSnapshotMs = this.#nowMs()
    const seq = this.#journal.nextSeq - 1
    if (seq < 1) return
    const captured = this.core.snapshot()
    // The parts whose objects later commands change in place are small: serialised right now.
    const state = {
      ...captured,
      savings: new RawJson(JSON.stringify(captured.savings)),
      staking: new RawJson(JSON.stringify(captured.staking)),
      payments: new RawJson(JSON.stringify(captured.payments)),
      pendingWithdrawals: new RawJson(JSON.stringify(captured.pendingWithdrawals)),
      cancelDeadlines: new RawJson(JSON.stringify(captured.cancelDeadlines)),
    }
    const stateJson = await stringifyInChunks(state, snapshotSliceMs, snapshotRestMs)
    await this.#journal.drain()
    const oldestKept = await this.#snapshots.save(seq, stateJson, this.#nowMs())
    await this.#journal.prune(oldestKept)
  }

  drain(): Promise<void> {
    return this.#journal.drain()
  }
}
