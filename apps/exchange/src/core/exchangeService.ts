// The core behind the journal: a command is applied (synchronously, so every command sees the
// state the previous one left), journaled, and acknowledged only once durable; its events are
// published only then too, so nobody ever sees a trade that a crash could take back. On start
// the journal is replayed through a fresh core, which rebuilds books, orders, balances and
// nonces exactly.
import type { EngineEvent, MarketConfig } from '@polder/engine'
import type { Journal } from '../storage/journal.ts'
import { type CoreCommand, type CoreOutcome, ExchangeCore } from './exchangeCore.ts'

export type EventListener = (events: readonly EngineEvent[], command: CoreCommand) => void
export type OutcomeListener = (command: CoreCommand, outcome: CoreOutcome) => void

const replayPageRecordsMax = 10_000

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
  console.error(`fatal: ${error.stack ?? error.message}`)
  process.exit(70)
}

export class ExchangeService {
  readonly core: ExchangeCore
  readonly #journal: Journal
  readonly #listeners: EventListener[] = []
  readonly #outcomeListeners: OutcomeListener[] = []
  /** Commands journaled since start (for metrics). */
  commandsJournaled = 0

  readonly #onFatal: FatalHandler
  #halted: Error | undefined

  private constructor(core: ExchangeCore, journal: Journal, onFatal: FatalHandler) {
    this.core = core
    this.#journal = journal
    this.#onFatal = onFatal
  }

  /** Replays the journal, then lists every market of `markets` that the journal did not have. */
  static async open(
    journal: Journal,
    markets: readonly MarketConfig[],
    nowMs: number,
    onFatal: FatalHandler = exitOnFatal,
  ): Promise<ExchangeService> {
    const core = new ExchangeCore()
    let afterSeq = 0
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
      }
      if (page.length < replayPageRecordsMax) break
    }
    const service = new ExchangeService(core, journal, onFatal)
    for (const config of markets) {
      if (core.engine.market(config.market) !== null) continue
      const outcome = await service.submit({ type: 'addMarket', timestamp: nowMs, config })
      if (!outcome.ok) throw new Error(`market ${config.market} refused: ${outcome.error}`)
    }
    return service
  }

  onEvents(listener: EventListener): void {
    this.#listeners.push(listener)
  }

  /** Called for every submitted command once its outcome is known (for metrics). */
  onOutcome(listener: OutcomeListener): void {
    this.#outcomeListeners.push(listener)
  }

  /** Applies, journals and, once durable, publishes. Refusals are answered at once. */
  async submit(command: CoreCommand): Promise<CoreOutcome> {
    if (this.#halted)
      throw new ExchangeHaltedError('the exchange has halted', { cause: this.#halted })
    let outcome: CoreOutcome
    let durable: Promise<void>
    try {
      outcome = this.core.apply(command)
      for (const listener of this.#outcomeListeners) listener(command, outcome)
      if (!outcome.ok) return outcome
      durable = this.#journal.append({ kind: command.type, payload: command }).durable
    } catch (error) {
      throw this.#halt(error as Error)
    }
    this.commandsJournaled += 1
    try {
      await durable
    } catch (error) {
      throw this.#halt(error as Error)
    }
    if (outcome.events.length > 0)
      for (const listener of this.#listeners) listener(outcome.events, command)
    return outcome
  }

  #halt(error: Error): Error {
    this.#halted ??= error
    this.#onFatal(error)
    return new ExchangeHaltedError('the exchange has halted', { cause: error })
  }

  drain(): Promise<void> {
    return this.#journal.drain()
  }
}
