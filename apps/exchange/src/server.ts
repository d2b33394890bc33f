// The exchange server: REST under /v2 and the WebSocket at /v2 and /v2/ on one port, as the
// public v2 protocol requires (ccxt connects to /v2, the SDK to /v2/).
import { randomBytes } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import proxyAddr from '@fastify/proxy-addr'
import { type FillEvent, isOpenStatus } from '@polder/engine'
import { protocolError, type SubscriptionChannel } from '@polder/protocol'
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify'
import { WebSocketServer } from 'ws'
import { AccountStore } from './accounts/accountStore.ts'
import { createSecretBox, loadSecretKey } from './accounts/secretBox.ts'
import { ActionRegistry, success } from './api/actions.ts'
import {
  adminTokenFile,
  hasBearerToken,
  isLoopbackRequest,
  metricsTokenFile,
  registerAdminRoutes,
} from './api/adminRoutes.ts'
import { type Listing, registerExchangeActions } from './api/exchangeActions.ts'
import { MarketDataHub } from './api/marketDataHub.ts'
import { registerPaymentRoutes } from './api/paymentRoutes.ts'
import { registerRestRoutes } from './api/restRoutes.ts'
import { registerSavingsRoutes } from './api/savingsRoutes.ts'
import { registerSessionRoutes } from './api/sessionRoutes.ts'
import { registerStakingRoutes } from './api/stakingRoutes.ts'
import { registerWebRoutes } from './api/webRoutes.ts'
import { RequestFailedError, UncorkQueue, WsConnection } from './api/wsConnection.ts'
import { type ExchangeConfig, wsMessageReadFactor } from './config.ts'
import { CancelOnDisconnect } from './core/cancelOnDisconnect.ts'
import { ExchangeService, exitOnFatal, type FatalHandler } from './core/exchangeService.ts'
import { recentTradesPerMarketMax } from './core/orderHistory.ts'
import { PeriodicTask } from './core/periodicTask.ts'
import { addressBlock } from './limits/addressBlock.ts'
import { LoginFailures } from './limits/loginFailures.ts'
import { NewOrderLimiter } from './limits/newOrderLimiter.ts'
import {
  defaultRateLimitConfig,
  RateLimiter,
  rateLimitHeaders,
  rateLimitRemainingHeader,
} from './limits/rateLimiter.ts'
import {
  createMetrics,
  watchArchives,
  watchBookFlushes,
  watchFanOut,
  watchJournal,
} from './metrics.ts'
import { type PaymentProvider, SandboxPaymentProvider } from './payments/paymentProvider.ts'
import { PaymentService } from './payments/paymentService.ts'
import { SavingsScheduler } from './savings/scheduler.ts'
import { type HistoryStartup, openCandleHistory } from './simulator/historyStartup.ts'
import { defaultSimulatorOptions, MarketSimulator } from './simulator/marketSimulator.ts'
import { StakingAccrual } from './staking/stakingAccrual.ts'
import { openCandleArchive } from './storage/candleArchive.ts'
import { hexSecretFile, keepDataDirPrivate } from './storage/dataDir.ts'
import { type FillPartition, openFillArchive } from './storage/fillArchive.ts'
import { type Journal, openJournal } from './storage/journal.ts'
import { openStorage, type StorageLocation, storageLocation } from './storage/openStorage.ts'
import { type ArchivedOrder, openOrderArchive } from './storage/orderArchive.ts'
import { openSnapshotStore } from './storage/snapshotStore.ts'
import type { SqlDriver } from './storage/sqlDriver.ts'
import { openTradeArchive } from './storage/tradeArchive.ts'
import {
  type ArchivedTransfer,
  openTransferArchive,
  type TransferPartition,
} from './storage/transferArchive.ts'
import { WithdrawalProcessor } from './transfers/withdrawalProcessor.ts'

export type Clock = { nowMs(): number }
export const systemClock: Clock = { nowMs: () => Date.now() }

export type ExchangeServer = {
  app: FastifyInstance
  accounts: AccountStore
  storage: SqlDriver
  /** The command journal (in its own SQLite file on the embedded default). */
  journal: Journal
  service: ExchangeService
  /** The market simulator, when the config turns it on (started by `listen`). */
  simulator: MarketSimulator | undefined
  /** Runs due savings plans (started by `listen`; tests may call `tick` with a test clock). */
  savingsScheduler: SavingsScheduler
  /** Pays staking rewards once a day (started by `listen`). */
  stakingAccrual: StakingAccrual
  /** Moves withdrawals through their statuses (started by `listen`; tests may call `tick`). */
  withdrawalProcessor: WithdrawalProcessor
  /** Cancels order groups whose countdown ran out (started by `listen`; tests may call `tick`). */
  cancelOnDisconnect: CancelOnDisconnect
  /** Euro deposits by payment method. */
  payments: PaymentService
  /** Deletes archived public trades past the retention (started by `listen`; tests may `run` it). */
  tradePruning: PeriodicTask<void>
  /** Deletes archived candles past their retention (started by `listen`; tests may `run` it). */
  candlePruning: PeriodicTask<void>
  /**
   * Forgets cached API keys revoked in the database directly, and unauthenticates their
   * sockets; reads the cached stored fee tiers again; deletes sessions ended a day ago (every
   * 15 s once listening; tests may `run` it). Gives how many keys it found revoked and how many
   * tiers changed.
   */
  accountSweep: PeriodicTask<{
    revokedKeys: number
    endedSessions: number
    feeTiers: number
    feeTiersForgotten: number
    /** Session rows deleted: ended (expired or revoked) more than a day before. */
    sessionsDeleted: number
  }>
  /** Bearer token of the /admin endpoints (kept in the data directory when there is one). */
  adminToken: string
  /** Bearer token of /metrics from another host (`metrics.token` in the data directory). */
  metricsToken: string
  /** Starts listening; resolves with the base URL (http://host:port). */
  listen(): Promise<string>
  /** Stops accepting, closes every socket with 1001 (going away), then the HTTP server and the database. */
  close(): Promise<void>
}

const wsPaths = new Set(['/v2', '/v2/'])
const wsCloseGoingAway = 1001
/**
 * Requests one connection may have awaiting a reply before the server stops reading it: its
 * later requests wait in the kernel (TCP holds the client back) until half of these are
 * answered. Frames already read still count, so a burst can pass it by one or two reads.
 */
const wsRequestsInFlightPause = 1_000
/**
 * Requests awaiting a reply at which a connection is closed (1008): only reached by frames
 * read before the pause took effect, i.e. a burst of thousands of tiny requests in one read.
 */
const wsRequestsInFlightMax = 4 * wsRequestsInFlightPause
/**
 * Connections a broadcast writes to in one turn of the event loop before the requests read
 * meanwhile are served: about 5-10 ms of writes on the machines measured (README, "Fan-out in
 * slices").
 */
const fanOutSliceConnections = 1_000
/** How often trades older than the retention are deleted from the trade archive. */
const tradePruneIntervalMs = 10 * 60_000
/**
 * How often cached API keys and fee tiers are checked for a revocation or a change made in the
 * database directly.
 */
const accountSweepIntervalMs = 15_000
/** Connections (plain HTTP ones) an address may hold beyond its most WebSockets. */
export const connectionsPerIpBeyondWs = 100

/** Open sockets counted by address, each let go as it closes. */
class SocketsByAddress {
  readonly #open = new Map<string, number>()

  /**
   * Counts the socket, or, when the address holds `max` already, answers it 429 with the reason
   * in words (the `what` it holds too many of) and closes it: false.
   */
  admit(ip: string, socket: Duplex, max: number, what: string): boolean {
    const open = this.#open.get(ip) ?? 0
    if (open >= max) {
      const body = JSON.stringify({
        error: `This address already holds ${open} ${what}, the most one may: close one first.`,
      })
      socket.end(
        `HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      )
      return false
    }
    this.#open.set(ip, open + 1)
    socket.once('close', () => {
      const left = (this.#open.get(ip) ?? 1) - 1
      if (left > 0) this.#open.set(ip, left)
      else this.#open.delete(ip)
    })
    return true
  }
}
/** Longest wait of a command for its journal commit that /health still answers ok. */
const healthJournalWaitMsMax = 2_000
/** Server pings every this often; a connection that did not answer the last one is dropped. */
const wsHeartbeatIntervalMs = 30_000

export type ServerOptions = {
  /** Called when the core or the journal fails; default: log and exit the process. */
  onFatal?: FatalHandler
  /** Where euro deposits are paid; default: the sandbox, which confirms at once. */
  paymentProvider?: PaymentProvider
  /** Connections a broadcast writes to in one turn of the event loop (tests make it small). */
  fanOutSliceConnections?: number
  /** How the next slice of a broadcast is run; default setImmediate (tests space them out). */
  fanOutNextTurn?: (run: () => void) => void
  /** How often touched books are flushed; default about every 100 ms (tests make it long). */
  bookFlushIntervalMs?: number
  /** Most subscribers of a book whose change after a quiet interval is flushed at once. */
  leadingFlushSubscribersMax?: number
}

export async function createExchangeServer(
  config: ExchangeConfig,
  listing: Listing,
  clock: Clock = systemClock,
  options: ServerOptions = {},
): Promise<ExchangeServer> {
  const startedMs = clock.nowMs()
  const dataDirWasOpen =
    config.dataDir === undefined ? undefined : keepDataDirPrivate(config.dataDir)
  const location: StorageLocation =
    config.dataDir === undefined && config.databaseUrl === undefined
      ? { kind: 'embedded', dataDir: undefined }
      : storageLocation(config.dataDir ?? '.', config.databaseUrl)
  // The data directory's own files first, before the database is opened (which can take a
  // while): a damaged one stops the start at once and leaves no database behind.
  const secretKey =
    config.dataDir === undefined && config.secretKeyHex === undefined
      ? randomBytes(32) // in-memory server: nothing outlives the process
      : loadSecretKey(config.dataDir ?? '.', config.secretKeyHex)
  const token = (fileName: string) =>
    config.dataDir === undefined
      ? randomBytes(32).toString('hex')
      : hexSecretFile(config.dataDir, fileName)
  const adminToken = token(adminTokenFile)
  const metricsToken = token(metricsTokenFile)
  const storage = await openStorage(location)
  // PostgreSQL: another server took the database over while this one's writer session was down
  // (postgresWriter.ts); this one's state is no longer the exchange's, and its journal refuses.
  storage.writer?.onLost((error) => (options.onFatal ?? exitOnFatal)(error))
  const accounts = new AccountStore(storage, createSecretBox(secretKey), () => clock.nowMs())
  try {
    await accounts.checkSecretKey()
  } catch (error) {
    await storage.close()
    throw error
  }
  const rateLimiter = new RateLimiter({
    ...defaultRateLimitConfig,
    weightPerMinuteMax: config.rateLimitWeightPerMinute,
  })
  const journal = await openJournal(location, storage, { nowMs: () => clock.nowMs() })
  const service = await ExchangeService.open(
    openSnapshotStore(location, storage),
    journal,
    listing.markets,
    () => clock.nowMs(),
    options.onFatal,
  )
  // Public trades beyond the core's recent ones. First what a crash kept from being written:
  // the core's recent trades (in its snapshot and rebuilt by the replay) always reach back past
  // the last batch the archive wrote, which is at most 100 ms old.
  const tradeArchive = openTradeArchive(location, storage)
  const tradesKeptFromMs = () =>
    config.tradeRetentionDays === 0 ? 0 : clock.nowMs() - config.tradeRetentionDays * 86_400_000
  // However old they are by now (a restart days later): the prune keeps a market's newest trades.
  const tradeCatchUp = await tradeArchive.catchUp(service.core.history.recentTrades())
  // Closed candles older than the core keeps, first those a crash kept from being written.
  const candleArchive = openCandleArchive(location, storage)
  const candleCatchUp = await candleArchive.follow(service.core.stats)
  service.onEvents((events) => {
    for (const event of events)
      if (event.type === 'trade') {
        tradeArchive.add(event)
        candleArchive.noteTrade(event)
      }
  })
  const tradedMarkets = () => [...service.core.history.recentTrades()].map(([market]) => market)
  const tradePruning = new PeriodicTask(async () => {
    if (config.tradeRetentionDays === 0) return
    // Each market keeps its newest trades whatever their age, as the core does.
    await tradeArchive.prune(tradesKeptFromMs(), recentTradesPerMarketMax, tradedMarkets())
  }, undefined)
  // Candles are kept by their own rule (candleArchive.ts), whatever the trades' retention, in a
  // task of their own: a failing archive does not hold up the other's retention.
  const candlePruning = new PeriodicTask(async () => {
    await candleArchive.prune(clock.nowMs(), tradedMarkets())
  }, undefined)
  // A key revoked, or a fee tier changed, in the database directly holds within this interval
  // (accountStore.ts). Fee tiers no order has asked for lately are let go first (but those of
  // accounts with an authenticated WebSocket), so that memory and the reads stay bounded by the
  // accounts that trade, not by every account seen since the start.
  // Sockets authenticated with a browser session that has expired since, or was revoked in the
  // database directly, lose it here too (one that only listens would otherwise go on hearing of
  // the account's orders and fills until its next request).
  const accountSweep = new PeriodicTask(
    async () => {
      const nowMs = clock.nowMs()
      let expiredSessions = 0
      const sessionHashes = new Set<string>()
      const connected = new Set<number>()
      for (const connection of hub.connections) {
        if (connection.expireSession(nowMs)) expiredSessions += 1
        else if (connection.sessionHash !== undefined) sessionHashes.add(connection.sessionHash)
        if (connection.caller !== undefined) connected.add(connection.caller.accountId)
      }
      const feeTiersForgotten = accounts.forgetIdleFeeTiers((accountId) => connected.has(accountId))
      // Each part runs whether or not the others fail; a failure is reported after all of them.
      const parts = await Promise.allSettled([
        accounts.sweepRevokedKeys(),
        accounts.sweepEndedSessions([...sessionHashes]),
        accounts.refreshFeeTiers(),
        accounts.deleteEndedSessions(),
      ])
      const [revokedKeys, endedSessions, feeTiers, sessionsDeleted] = parts.map((part) => {
        if (part.status === 'rejected') throw part.reason
        return part.value
      }) as [number, number, number, number]
      return {
        revokedKeys,
        endedSessions: expiredSessions + endedSessions,
        feeTiers,
        feeTiersForgotten,
        sessionsDeleted,
      }
    },
    { revokedKeys: 0, endedSessions: 0, feeTiers: 0, feeTiersForgotten: 0, sessionsDeleted: 0 },
  )
  const metrics = createMetrics()
  service.onOutcome((command, outcome) => {
    metrics.countCommand(command.type, outcome.ok ? 'accepted' : String(outcome.errorCode))
  })
  const simulator = config.simulator
    ? await createSimulator(accounts, service, listing, () => clock.nowMs(), config)
    : undefined
  // Every account's fills, as the trade archive (catch-up first), but the simulator's: a dozen a
  // second without end, which nobody reads back beyond the core's recent ones.
  const fillArchive = openFillArchive(location, storage)
  const unarchivedAccounts: ReadonlySet<number> = new Set(simulator?.accountIds ?? [])
  const fillCatchUp = await fillArchive.catchUp(
    fillPartitions(service.core.history.recentFills(), unarchivedAccounts),
  )
  service.onEvents((events) => {
    for (const event of events)
      if (event.type === 'fill' && !unarchivedAccounts.has(event.accountId)) fillArchive.add(event)
  })
  // And their closed orders, each as it closes, with its fills: taken from the core as the
  // command is applied (later commands may trim its history before this one is durable), and
  // archived once it is durable.
  const orderArchive = openOrderArchive(location, storage)
  const orderCatchUp = await orderArchive.catchUp(function* (sinceMs) {
    for (const record of service.core.history.closedSince(sinceMs))
      if (!unarchivedAccounts.has(record.state.accountId)) yield record
  }, service.core.history.newestCloseMs())
  const closedByCommand = new WeakMap<object, ArchivedOrder[]>()
  service.onOutcome((command, outcome) => {
    if (!outcome.ok) return
    let closed: ArchivedOrder[] | undefined
    for (const event of outcome.events) {
      if (event.type !== 'order' || isOpenStatus(event.status)) continue
      if (unarchivedAccounts.has(event.accountId)) continue
      // The event is the order's state (its `type` aside, which nothing reads); the state's JSON
      // text is the core's own. The core holds every order it has just applied.
      const kept = service.core.history.closedOrderText(event.market, event.orderId)
      closed ??= []
      closed.push(
        kept === undefined
          ? { state: event, fills: [] }
          : {
              state: event,
              fills: [...kept.fills],
              stateText: kept.stateText,
              ...(kept.earlierFills > 0 ? { earlierFills: kept.earlierFills } : {}),
            },
      )
    }
    if (closed) closedByCommand.set(command, closed)
  })
  service.onEvents((_events, command) => {
    for (const order of closedByCommand.get(command) ?? []) orderArchive.add(order)
    closedByCommand.delete(command)
  })
  // And their deposits and withdrawals, each as it is recorded and again at each status a
  // withdrawal takes: taken from the core as the command is applied, archived once durable. What
  // the core recorded before (the replay, a first start after an upgrade) is caught up from its
  // memory, as the fills are; a withdrawal's status is written again, in case a crash cut it off.
  const transferArchive = openTransferArchive(location, storage)
  service.core.history.takeTransferChanges()
  const keptTransfers = function* (): Generator<[TransferPartition, ArchivedTransfer[]]> {
    for (const [accountId, transfers] of service.core.history.keptTransfers())
      if (!unarchivedAccounts.has(accountId))
        yield [{ accountId }, transfers.map((transfer) => ({ accountId, ...transfer }))]
  }
  const transferCatchUp = await transferArchive.catchUp(keptTransfers())
  for (const [, transfers] of keptTransfers())
    for (const transfer of transfers)
      if (transfer.kind === 'withdraw' && transfer.status !== undefined)
        transferArchive.add(transfer)
  const transfersByCommand = new WeakMap<object, ArchivedTransfer[]>()
  // Commands with transfers awaiting their commit (most commands have none: nothing is looked up).
  let transferCommandsWaiting = 0
  service.onOutcome((command) => {
    const changes = service.core.history.takeTransferChanges()
    if (changes.length === 0) return
    const archived: ArchivedTransfer[] = []
    for (const { accountId, transfer } of changes)
      if (!unarchivedAccounts.has(accountId)) archived.push({ accountId, ...transfer })
    if (archived.length === 0) return
    transfersByCommand.set(command, archived)
    transferCommandsWaiting += 1
  })
  service.onDurable((command) => {
    if (transferCommandsWaiting === 0) return
    const archived = transfersByCommand.get(command)
    if (archived === undefined) return
    for (const transfer of archived) transferArchive.add(transfer)
    transfersByCommand.delete(command)
    transferCommandsWaiting -= 1
  })
  watchArchives(metrics, {
    trades: tradeArchive,
    candles: candleArchive,
    fills: fillArchive,
    orders: orderArchive,
    transfers: transferArchive,
  })
  watchJournal(metrics, journal)
  const actions = new ActionRegistry().register('getTime', () => success({ time: clock.nowMs() }))
  const { warmAccount, currentFees } = registerExchangeActions(actions, {
    service,
    accounts,
    listing,
    nowMs: () => clock.nowMs(),
    withdrawalDelayMs: config.withdrawalDelayMs,
    tradeArchive,
    candleArchive,
    fillArchive,
    orderArchive,
    transferArchive,
    unarchivedAccounts,
    venue: config.venue,
    newOrders: new NewOrderLimiter({
      perSecondMax: config.newOrdersPerSecondMax,
      perDayMax: config.newOrdersPerDayMax,
    }),
  })
  const decimalsBySymbol = new Map(listing.assets.map((asset) => [asset.symbol, asset.decimals]))
  // Before listening, so charts have their 60 days from the first request on. The stored
  // history is loaded with the simulator off too; only the backfill needs it.
  const candleHistory: HistoryStartup = (
    await openCandleHistory(storage, service, simulator, config.seed, () => clock.nowMs())
  ).startup
  const hub = new MarketDataHub(
    service,
    (asset) => decimalsBySymbol.get(asset) ?? 8,
    () => clock.nowMs(),
    {
      bookFlushIntervalMs: options.bookFlushIntervalMs,
      leadingFlushSubscribersMax: options.leadingFlushSubscribersMax,
    },
  )

  // A request's client, as Fastify finds `request.ip`, through the proxies the operator trusts:
  // for sockets, and for requests Fastify refuses before it builds its own request object.
  const trusted =
    config.trustProxy === undefined ? undefined : proxyAddr.compile(config.trustProxy.split(','))
  const clientAddress = (request: IncomingMessage): string =>
    (trusted === undefined ? request.socket.remoteAddress : proxyAddr(request, trusted)) ??
    'unknown'
  /**
   * Answers `code` to a request refused before a route took it. It costs its IP one point, unless
   * a hook has charged it already, and says what is left (protocol §2.3: every response carries
   * the headers); 105 when that point bans the IP.
   */
  const refuseUnrouted = (
    request: FastifyRequest,
    reply: FastifyReply,
    code: 102 | 110,
    status?: number,
  ): FastifyReply => {
    if (!reply.hasHeader(rateLimitRemainingHeader)) {
      const decision = rateLimiter.charge(`ip:${clientAddress(request.raw)}`, 1, clock.nowMs())
      reply.headers(rateLimitHeaders(decision))
      if (!decision.allowed) {
        const banned = protocolError(105, { expiryInMs: decision.bannedUntilMs })
        return reply.code(banned.status).send(banned.body)
      }
    }
    const refusal = protocolError(code)
    return reply.code(status ?? refusal.status).send(refusal.body)
  }

  const app = Fastify({
    logger: {
      level: config.logLevel,
      // Secrets never reach the log.
      redact: [
        'req.headers["bitvavo-access-signature"]',
        'req.headers.authorization',
        '*.password',
        '*.secret',
      ],
    },
    // One line per request would drown the log under API clients and the simulator.
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
    // Behind a proxy the operator names, `request.ip` is the client the proxy forwards for.
    ...(config.trustProxy === undefined ? {} : { trustProxy: config.trustProxy }),
    // What Fastify refuses before any route runs gets the protocol's body, as every other answer.
    // A path that cannot be decoded (`%ZZ`), or with a parameter longer than the router reads
    // (100 characters), is matched to no endpoint: 110 tells the client to check the URL. Not
    // 205, which names a parameter: Fastify does not say which one it could not read. The status
    // stays Fastify's (400, 414 URI Too Long); protocol §5 puts 110 at 400 or 404. The only other
    // error it passes here is an async route constraint's (the server has none): a 101.
    frameworkErrors: (error, request, reply: FastifyReply) => {
      if (error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
        refuseUnrouted(request, reply, 110, error.statusCode ?? 400)
        return
      }
      request.log.error({ err: error }, 'unhandled framework error')
      const { status, body } = protocolError(101)
      reply.code(status).send(body)
    },
  })
  service.onSnapshotFailed((error) =>
    app.log.warn(
      { err: error },
      'snapshot failed; the journal holds every command, the next one is tried later',
    ),
  )
  if (dataDirWasOpen !== undefined)
    app.log.warn(
      { dataDir: config.dataDir, mode: dataDirWasOpen.toString(8) },
      'the data directory was open to other users; it is now open to its owner only (0700)',
    )
  if (config.publicUrl === undefined && !['127.0.0.1', '::1', 'localhost'].includes(config.host))
    app.log.warn(
      { host: config.host },
      'listening beyond loopback without --public-url: links the server hands out (asset icons) name the address each request reached, which behind NAT or a proxy is not the one clients use',
    )
  if (candleHistory.backfilled > 0)
    app.log.info(candleHistory, 'backfilled simulated candle history')
  /** What an archive's catch-up wrote and what it could not, and its failed writes. */
  const reportArchive = (
    archive: { onError(listener: (error: Error) => void): void },
    name: string,
    catchUp: { written: number; gaps?: readonly unknown[] },
    what: { written: string; gaps?: string },
  ): void => {
    if (catchUp.written > 0) app.log.info({ written: catchUp.written }, what.written)
    if (catchUp.gaps !== undefined && catchUp.gaps.length > 0)
      app.log.warn({ gaps: catchUp.gaps }, what.gaps)
    archive.onError((error) =>
      app.log.error({ err: error }, `${name} archive write failed; it is tried again`),
    )
  }
  reportArchive(tradeArchive, 'trade', tradeCatchUp, {
    written: 'wrote the public trades a stop left out of the trade archive',
    gaps: 'the trade archive misses trades of these markets that the core no longer holds',
  })
  reportArchive(candleArchive, 'candle', candleCatchUp, {
    written: 'wrote the closed candles a stop left out of the candle archive',
    gaps: 'the candle archive may miss candles of these markets and intervals that the core no longer holds',
  })
  reportArchive(fillArchive, 'fill', fillCatchUp, {
    written: 'wrote the fills a stop left out of the fill archive',
    gaps: 'the fill archive may miss fills of these accounts and markets that the core no longer holds',
  })
  reportArchive(
    orderArchive,
    'order',
    { written: orderCatchUp },
    {
      written: 'wrote again the closed orders a stop may have left out of the order archive',
    },
  )
  reportArchive(transferArchive, 'transfer', transferCatchUp, {
    written: 'wrote the deposits and withdrawals a stop left out of the transfer archive',
    gaps: 'the transfer archive misses deposits or withdrawals of these accounts that the core no longer holds',
  })

  // The roots answer with a short index so that every URL `npm start` prints opens something.
  const index = {
    name: 'Polder exchange',
    rest: '/v2',
    websocket: '/v2',
    health: '/health',
    metrics: '/metrics',
  }
  app.get('/', async () => index)
  app.get('/v2', async () => index)
  // Not ok (503) while a command has waited longer than `healthJournalWaitMsMax` for its
  // journal commit: on PostgreSQL a lock on the journal's table or a stalled connection holds
  // every command of the exchange, and a load balancer or supervisor asking should hear so.
  app.get('/health', async (_request, reply) => {
    const since = journal.uncommittedSinceMs
    const journalWaitMs = since === undefined ? 0 : Math.max(0, clock.nowMs() - since)
    const status = journal.failed
      ? 'halted'
      : journalWaitMs > healthJournalWaitMsMax
        ? 'degraded'
        : 'ok'
    if (status !== 'ok') reply.code(503)
    return {
      status,
      uptimeMs: clock.nowMs() - startedMs,
      journalWaitMs,
      startup: service.startup,
      candleHistory,
    }
  })
  // For the operator's scraper: from loopback as it is, from elsewhere with the metrics token
  // (its own, so that the admin token never has to cross the network). Behind a proxy (a public
  // URL is set), a proxy on this host makes every request come from loopback: the token then.
  const metricsOpenOnLoopback = config.publicUrl === undefined
  app.get('/metrics', async (request, reply) => {
    const trusted = metricsOpenOnLoopback && isLoopbackRequest(request)
    if (!trusted && !hasBearerToken(request, metricsToken))
      return reply.code(403).send({
        error: metricsOpenOnLoopback
          ? 'metrics need the metrics token (Authorization: Bearer) from outside loopback'
          : 'metrics need the metrics token (Authorization: Bearer) behind a public URL',
      })
    reply.header('content-type', metrics.registry.contentType)
    return metrics.registry.metrics()
  })
  registerAdminRoutes(app, {
    token: adminToken,
    accounts,
    service,
    decimalsOf: (asset) => decimalsBySymbol.get(asset),
    nowMs: () => clock.nowMs(),
  })
  // The spec's web API, savings plans and icons share the IP budget of the v2 API (1 point each).
  // Judged by the route the request was matched to, which Fastify finds from the decoded path:
  // `/%65xchange/…` reaches the same route as `/exchange/…`, and is charged as one.
  app.addHook('onRequest', async (request, reply) => {
    const path = request.routeOptions.url ?? request.url
    if (!path.startsWith('/exchange/') && !request.url.startsWith('/exchange/')) return
    const decision = rateLimiter.charge(`ip:${clientAddress(request.raw)}`, 1, clock.nowMs())
    reply.headers(rateLimitHeaders(decision))
    if (!decision.allowed) {
      const { status, body } = protocolError(105, { expiryInMs: decision.bannedUntilMs })
      return reply.code(status).send(body)
    }
  })
  registerWebRoutes(app, {
    service,
    listing,
    nowMs: () => clock.nowMs(),
    candleArchive,
    publicUrl: config.publicUrl,
  })
  registerSessionRoutes(app, {
    accounts,
    rateLimiter,
    loginFailures: new LoginFailures(),
    nowMs: () => clock.nowMs(),
  })
  registerSavingsRoutes(app, { service, accounts, nowMs: () => clock.nowMs() })
  registerStakingRoutes(app, { service, accounts, nowMs: () => clock.nowMs() })
  const payments = new PaymentService(
    service,
    options.paymentProvider ?? new SandboxPaymentProvider(),
    () => clock.nowMs(),
    // Left pending and asked about again; logged so that a broken provider does not go unseen.
    (error, paymentId) => app.log.warn({ err: error, paymentId }, 'payment provider failed'),
  )
  registerPaymentRoutes(app, { service, payments, accounts, nowMs: () => clock.nowMs() })
  const withdrawalProcessor = new WithdrawalProcessor(service, { nowMs: () => clock.nowMs() })
  const cancelOnDisconnect = new CancelOnDisconnect(service, { nowMs: () => clock.nowMs() })
  const stakingAccrual = new StakingAccrual(service, () => clock.nowMs())
  const savingsScheduler = new SavingsScheduler(service, {
    nowMs: () => clock.nowMs(),
    feesOf: currentFees,
  })
  registerRestRoutes(app, {
    actions,
    rateLimiter,
    findApiKey: (key) => accounts.findApiKey(key),
    warmAccount: (accountId) =>
      accounts.cachedFeeTier(accountId) === undefined
        ? accounts.loadFeeTier(accountId).then(() => undefined)
        : undefined,
    keyRevokedLately: (key) => accounts.revokedLately(key),
    nowMs: clock.nowMs,
  })

  app.setNotFoundHandler((request, reply) => {
    request.log.debug({ method: request.method, url: request.url }, 'unknown endpoint')
    refuseUnrouted(request, reply, 110)
  })
  app.setErrorHandler((error: { code?: string; statusCode?: number }, request, reply) => {
    if (
      error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
      error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
      error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ||
      error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
    )
      return refuseUnrouted(request, reply, 102)
    request.log.error({ err: error }, 'unhandled error')
    const { status, body } = protocolError(101)
    return reply.code(status).send(body)
  })

  // Shutting down (`close`): WebSocket messages are read no further, and HTTP answers close
  // their connection, so that a keep-alive client does not hold the stop for its timeout.
  let closing = false
  /** WebSocket requests being handled, each until its reply is sent: a stop waits for them. */
  const wsRequests = new Set<Promise<void>>()
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close')
  })
  // And from the first moment of the stop, a request not yet taken is refused (111, 503, as
  // Fastify's own return503OnClosing does once the HTTP server closes, seconds later after the
  // sockets' drain): nothing new is applied while the stop drains what was, and /health and a
  // WebSocket upgrade on /v2 (whose listener is gone) say the server is going (found by a review).
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return
    const refusal = protocolError(111)
    return reply.code(refusal.status).header('connection', 'close').send(refusal.body)
  })
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: config.wsMessageBytesMax * wsMessageReadFactor,
  })
  const fanOut = new UncorkQueue(
    options.fanOutSliceConnections ?? fanOutSliceConnections,
    options.fanOutNextTurn,
  )
  watchFanOut(metrics, fanOut)
  watchBookFlushes(metrics, hub)
  const wsDeps = {
    fanOut,
    actions,
    rateLimiter,
    findApiKey: (key: string) => accounts.findApiKey(key),
    findSession: (token: string) => accounts.liveSession(token),
    warmAccount,
    nowMs: clock.nowMs,
    marketExists: (market: string) => service.core.engine.market(market) !== null,
    onSubscriptionsChanged: (connection: WsConnection) => hub.index(connection),
    // A quiet market would otherwise leave a new ticker24h subscriber without data (protocol §6.3).
    afterSubscribe: (connection: WsConnection, channels: readonly SubscriptionChannel[]) => {
      for (const channel of channels) {
        if (channel.name !== 'ticker24h') continue
        for (const market of channel.markets) {
          const message = hub.ticker24hMessage(market)
          if (message !== undefined) connection.send(message)
        }
      }
    },
  }
  // Open sockets by IP address (an IPv6 client by its /64): one address may not hold the
  // server's memory with sockets.
  const webSockets = new SocketsByAddress()
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname
    if (!wsPaths.has(path)) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      return
    }
    const ip = addressBlock(clientAddress(request))
    if (!webSockets.admit(ip, socket, config.wsConnectionsPerIpMax, 'open WebSockets')) return
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request))
  }
  app.server.on('upgrade', onUpgrade)
  // Every connection by the address it comes from, WebSocket or not: plain HTTP keep-alive
  // sockets, and sockets still sending their headers, would otherwise have no bound per address.
  // An address may hold `connectionsPerIpBeyondWs` more than its WebSockets, so that these reach
  // their own limit (answered in words) first. Not behind a trusted proxy: its clients all come
  // from its address, and it is the proxy that holds their connections.
  if (trusted === undefined) {
    const connections = new SocketsByAddress()
    const max = config.wsConnectionsPerIpMax + connectionsPerIpBeyondWs
    app.server.on('connection', (socket: Socket) => {
      connections.admit(
        addressBlock(socket.remoteAddress ?? 'unknown'),
        socket,
        max,
        'open connections',
      )
    })
  }
  // A logout or a revoked key ends the authentication of every socket that used it (rare: a
  // walk over the connections is cheap enough).
  accounts.onRevoked((credential) => {
    for (const connection of hub.connections) connection.revoke(credential)
  })
  wss.on('connection', (ws, request: IncomingMessage) => {
    const connection = new WsConnection(ws, clientAddress(request), wsDeps)
    hub.add(connection)
    metrics.openSockets.inc()
    ws.on('close', () => {
      hub.remove(connection)
      metrics.openSockets.dec()
    })
    // Each request starts as it arrives, so commands reach the core in arrival order (the core
    // applies them synchronously); only the replies wait, each for its own journal commit. A
    // client with too many requests awaiting replies is read no further until the server has
    // caught up (backpressure, rather than serving it without bound or cutting it off).
    let inFlight = 0
    ws.on('message', (data, isBinary) => {
      // A binary or oversized message is not read: either is answered as invalid JSON (102).
      const text =
        isBinary || (data as Buffer).length > config.wsMessageBytesMax ? '' : data.toString()
      // A message that comes after the stop began is not applied: the client hears the
      // going-away close instead of a reply.
      if (closing) return
      if (inFlight >= wsRequestsInFlightMax) {
        ws.close(1008, 'too many requests in flight')
        return
      }
      inFlight += 1
      if (inFlight >= wsRequestsInFlightPause && !ws.isPaused) {
        ws.pause()
        metrics.wsPauses.inc()
      }
      const arrivedAt = performance.now()
      const handled = connection
        .onMessage(text)
        .catch((error: unknown) => {
          app.log.error({ err: error }, 'websocket request failed')
          // Answered already when it failed past the checks, by its requestId.
          if (!(error instanceof RequestFailedError))
            connection.send(JSON.stringify(protocolError(101).body))
        })
        .finally(() => {
          inFlight -= 1
          wsRequests.delete(handled)
          metrics.wsRequestSeconds.observe((performance.now() - arrivedAt) / 1000)
          if (inFlight <= wsRequestsInFlightPause / 2 && ws.isPaused && !closing) ws.resume()
        })
      wsRequests.add(handled)
    })
    ws.on('error', (error) => app.log.debug({ err: error }, 'websocket error'))
    let alive = true
    ws.on('pong', () => {
      alive = true
    })
    // Half-open connections (a vanished client) are found by a ping that gets no pong.
    const heartbeat = setInterval(() => {
      if (!alive) {
        ws.terminate()
        return
      }
      alive = false
      ws.ping()
    }, wsHeartbeatIntervalMs)
    ws.on('close', () => clearInterval(heartbeat))
  })

  return {
    app,
    accounts,
    storage,
    journal,
    service,
    simulator,
    savingsScheduler,
    stakingAccrual,
    withdrawalProcessor,
    cancelOnDisconnect,
    payments,
    tradePruning,
    candlePruning,
    accountSweep,
    adminToken,
    metricsToken,
    async listen() {
      // Countdowns that ran out while the server was down go before anyone can trade, and so do
      // the staking days missed: no stake or unstake comes between them and their payout.
      await cancelOnDisconnect.tick()
      await stakingAccrual.tick()
      // Before anyone can trade with them, and published at once: the books as they now are.
      if (!config.simulator && (await withdrawSimulatedQuotes(accounts, service, listing, clock)))
        await hub.flushBooks()
      await app.listen({ host: config.host, port: config.port })
      hub.start()
      simulator?.start()
      const failed = (task: string) => (error: unknown) =>
        app.log.error({ err: error, task }, 'background task failed; it runs again next tick')
      savingsScheduler.start(failed('savings scheduler'))
      stakingAccrual.start(failed('staking rewards'))
      withdrawalProcessor.start(failed('withdrawals'))
      cancelOnDisconnect.start(failed('cancel on disconnect'))
      payments.start() // asks again about the payments a stop left pending
      tradePruning.start(tradePruneIntervalMs, failed('trade archive retention'))
      accountSweep.start(accountSweepIntervalMs, failed('account sweep'))
      tradePruning.run().catch(failed('trade archive retention'))
      candlePruning.start(tradePruneIntervalMs, failed('candle archive retention'))
      candlePruning.run().catch(failed('candle archive retention'))
      const address = app.server.address()
      if (address === null || typeof address === 'string')
        throw new Error('server has no TCP address')
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
      return `http://${host}:${address.port}`
    },
    async close() {
      app.server.off('upgrade', onUpgrade)
      // What was read is answered before the sockets close: an order applied but never answered
      // would leave its client guessing. Nothing more is read (the messages a paused socket
      // still emits are dropped above), and a request is given at most 5 s.
      closing = true
      for (const ws of wss.clients) ws.pause()
      let requestsTimer: ReturnType<typeof setTimeout> | undefined
      await Promise.race([
        Promise.allSettled([...wsRequests]),
        new Promise<void>((resolve) => {
          requestsTimer = setTimeout(resolve, 5_000)
        }),
      ])
      clearTimeout(requestsTimer)
      // Read again, for the clients' answers to the close frames (their messages are dropped).
      for (const ws of wss.clients) ws.resume()
      // Each client gets the going-away close frame and a second to answer it; closing the HTTP
      // server below destroys what is left, and a socket destroyed before its close frame went
      // out would look like a dropped connection (1006) to the client.
      const closed = [...wss.clients].map(
        (ws) =>
          new Promise<void>((resolve) => {
            ws.once('close', () => resolve())
            ws.close(wsCloseGoingAway, 'server shutting down')
          }),
      )
      let graceTimer: ReturnType<typeof setTimeout> | undefined
      await Promise.race([
        Promise.all(closed),
        new Promise<void>((resolve) => {
          graceTimer = setTimeout(resolve, 1_000)
        }),
      ])
      clearTimeout(graceTimer)
      for (const ws of wss.clients) ws.terminate()
      await new Promise<void>((resolve) => wss.close(() => resolve()))
      await simulator?.stop()
      savingsScheduler.stop()
      stakingAccrual.stop()
      withdrawalProcessor.stop()
      cancelOnDisconnect.stop()
      payments.stop()
      tradePruning.stop()
      candlePruning.stop()
      accountSweep.stop()
      hub.stop()
      await app.close()
      await service.drain()
      await service.snapshot() // a clean stop restarts without replaying
      await tradeArchive.close()
      await candleArchive.close()
      await fillArchive.close()
      await orderArchive.close()
      await transferArchive.close()
      await journal.close()
      await storage.close()
    },
  }
}

/** The core's recent fills per account and market, oldest first, of the archived accounts. */
function* fillPartitions(
  recent: Iterable<[accountId: number, fills: readonly FillEvent[]]>,
  unarchived: ReadonlySet<number>,
): Generator<[FillPartition, FillEvent[]]> {
  for (const [accountId, fills] of recent) {
    if (unarchived.has(accountId)) continue
    const byMarket = new Map<string, FillEvent[]>()
    for (const fill of fills) {
      const list = byMarket.get(fill.market) ?? []
      list.push(fill)
      byMarket.set(fill.market, list)
    }
    for (const [market, list] of byMarket) yield [{ accountId, market }, list]
  }
}

async function simulatedAccount(accounts: AccountStore, email: string): Promise<number> {
  const existing = await accounts.findAccountByEmail(email)
  if (existing) return existing.id
  return (await accounts.createAccount(email, randomBytes(24).toString('base64url'), 'exchange')).id
}

/**
 * With the simulator off, its maker's quotes of an earlier run are cancelled (journaled, one
 * command a market; whether there were any): left on the books at the prices of the day it
 * stopped, with nothing to move them, they would trade with anyone at those prices. The
 * simulator's next start quotes afresh anyway.
 */
async function withdrawSimulatedQuotes(
  accounts: AccountStore,
  service: ExchangeService,
  listing: Listing,
  clock: Clock,
): Promise<boolean> {
  const maker = await accounts.findAccountByEmail(simulatorMakerEmail)
  if (maker === undefined) return false
  const engine = service.core.engine
  const cancels = listing.markets
    .filter(({ market }) => engine.openOrders(market, maker.id).length > 0)
    .map(({ market }) =>
      service.submit({
        type: 'cancelOrders',
        timestamp: clock.nowMs(),
        accountId: maker.id,
        market,
      }),
    )
  await Promise.all(cancels)
  return cancels.length > 0
}

/** The simulator's accounts, at `.invalid`, where no customer's address can be. */
const simulatorMakerEmail = 'simulator-maker@polder.invalid'
const simulatorTakerEmail = 'simulator-taker@polder.invalid'

async function createSimulator(
  accounts: AccountStore,
  service: ExchangeService,
  listing: Listing,
  nowMs: () => number,
  config: Pick<ExchangeConfig, 'seed' | 'simulatorRequoteMs'>,
): Promise<MarketSimulator> {
  const simulator = new MarketSimulator(service, listing.simulation ?? [], {
    ...defaultSimulatorOptions,
    seed: config.seed,
    requoteIntervalMs: config.simulatorRequoteMs,
    makerAccountId: await simulatedAccount(accounts, simulatorMakerEmail),
    takerAccountId: await simulatedAccount(accounts, simulatorTakerEmail),
    nowMs,
  })
  await simulator.fund()
  return simulator
}
