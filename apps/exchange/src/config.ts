// Server configuration from flags, then environment, then defaults. Documented in README.md.
import { parseArgs } from 'node:util'
import proxyAddr from '@fastify/proxy-addr'
import { backgroundNiceOf } from './storage/backgroundThread.ts'

export type ExchangeConfig = {
  host: string
  /** 0 asks the operating system for a free port. */
  port: number
  /**
   * Largest WebSocket message read, in bytes. A larger one is answered with 102, as an oversized
   * REST body is, and the socket stays open; one over `wsMessageReadFactor` times this closes the
   * socket (1009), so that no message holds more memory than that.
   */
  wsMessageBytesMax: number
  /**
   * Open WebSockets one IP address may hold (POLDER_WS_CONNECTIONS_PER_IP_MAX); another
   * upgrade from it is refused with 429. Each socket may hold a message of up to
   * `wsMessageBytesMax * wsMessageReadFactor` while it arrives, so this bounds that too.
   */
  wsConnectionsPerIpMax: number
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  /** Where the embedded database and the secret key live; undefined: in memory (tests). */
  dataDir: string | undefined
  /** PostgreSQL instead of the embedded database (DATABASE_URL). */
  databaseUrl: string | undefined
  /** 64 hex characters that encrypt API secrets (POLDER_SECRET_KEY); else a file in dataDir. */
  secretKeyHex: string | undefined
  /**
   * New orders an account may send a second and a day (POLDER_NEW_ORDERS_PER_SECOND_MAX,
   * POLDER_NEW_ORDERS_PER_DAY_MAX); the protocol's 100 and 100,000, error 104 past them.
   */
  newOrdersPerSecondMax: number
  newOrdersPerDayMax: number
  /** Rate-limit budget per API key or IP (POLDER_RATE_LIMIT_WEIGHT_PER_MINUTE); protocol default 1000. */
  rateLimitWeightPerMinute: number
  /** Run the market simulator (on for `serve`, off with --no-simulator and in tests). */
  simulator: boolean
  /** Seed of the simulator's price walks. */
  seed: number
  /** How often the simulator re-quotes each market, in ms: its rate (and CPU) scales with 1/this. */
  simulatorRequoteMs: number
  /** How long a withdrawal takes to complete (the simulated confirmation), in ms. */
  withdrawalDelayMs: number
  /** Days of public trades kept for /{market}/trades; 0 keeps them all. */
  tradeRetentionDays: number
  /**
   * The exchange's Market Identifier Code (ISO 10383: four letters or digits), which the MiCA
   * reports name as venue and trading system. The default is not a registered code.
   */
  venue: string
  /**
   * The URL clients reach the server at, when a proxy stands in front of it (POLDER_PUBLIC_URL):
   * links the server hands out (asset icons) are built on it. Unset: on the address a request
   * reached, never on its Host header, which the client chooses.
   */
  publicUrl: string | undefined
  /**
   * The proxies whose `X-Forwarded-For` is believed (POLDER_TRUST_PROXY): addresses, CIDR
   * ranges or `loopback`, `linklocal`, `uniquelocal`, comma-separated. A request or WebSocket
   * through one is then counted (rate limits, sockets per address) and judged (loopback-only
   * endpoints) by the client's address the proxy names. Unset: by the socket's own address.
   */
  trustProxy: string | undefined
}

/** How much larger than `wsMessageBytesMax` a message may be before it closes its socket. */
export const wsMessageReadFactor = 4

export const defaultConfig: ExchangeConfig = {
  host: '127.0.0.1',
  port: 8080,
  wsMessageBytesMax: 64 * 1024,
  wsConnectionsPerIpMax: 200,
  logLevel: 'info',
  dataDir: './data',
  databaseUrl: undefined,
  secretKeyHex: undefined,
  rateLimitWeightPerMinute: 1000,
  newOrdersPerSecondMax: 100,
  newOrdersPerDayMax: 100_000,
  simulator: false,
  seed: 1,
  simulatorRequoteMs: 15_000,
  withdrawalDelayMs: 6_000,
  tradeRetentionDays: 7,
  venue: 'PLDR',
  publicUrl: undefined,
  trustProxy: undefined,
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

/**
 * Digits only: `Number` would also take `0x1f90`, `1e3`, ` 8 ` and `` (as 0), which no operator
 * means as a count, a port or a duration.
 */
const wholeNumberPattern = /^\d+$/

function nonNegativeInteger(name: string, text: string): number {
  const value = wholeNumberPattern.test(text) ? Number(text) : Number.NaN
  if (!Number.isSafeInteger(value) || value < 0)
    throw new ConfigError(`${name} must be a whole number from 0, got "${text}"`)
  return value
}

function positiveInteger(name: string, text: string): number {
  const value = wholeNumberPattern.test(text) ? Number(text) : Number.NaN
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new ConfigError(`${name} must be a positive whole number, got "${text}"`)
  return value
}

/** `text` as an http(s) URL without query, fragment or trailing slash. */
function publicUrlOf(text: string): string {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    url = new URL('invalid:')
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.search || url.hash || url.username)
    throw new ConfigError(
      `--public-url must be an http or https URL without query or fragment, got "${text}"`,
    )
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`
}

/** `text` as a list proxy-addr understands, checked here so that a typo stops the start. */
function trustProxyOf(text: string | undefined): string | undefined {
  if (!text) return undefined
  const list = text.split(',').map((item) => item.trim())
  try {
    proxyAddr.compile(list)
  } catch (error) {
    throw new ConfigError(
      `--trust-proxy must list addresses, CIDR ranges or loopback, linklocal, uniquelocal: ${(error as Error).message}`,
    )
  }
  return list.join(',')
}

export function parseConfig(
  argv: readonly string[],
  givenEnv: Readonly<Record<string, string | undefined>>,
): ExchangeConfig {
  // A variable set to nothing (`HOST=` as an env file or a compose file leaves it) is unset:
  // read as given, an empty HOST listened on every interface and an empty PORT on a random port.
  const env = Object.fromEntries(
    Object.entries(givenEnv).filter(([, value]) => value !== ''),
  ) as Readonly<Record<string, string | undefined>>
  const { values } = parseArgs({
    args: [...argv],
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'log-level': { type: 'string' },
      data: { type: 'string' },
      'no-simulator': { type: 'boolean' },
      seed: { type: 'string' },
      'simulator-requote-ms': { type: 'string' },
      'withdrawal-delay-ms': { type: 'string' },
      'trade-retention-days': { type: 'string' },
      venue: { type: 'string' },
      'public-url': { type: 'string' },
      'trust-proxy': { type: 'string' },
    },
    strict: true,
  })
  const host = values.host ?? env.HOST ?? defaultConfig.host
  // Node would listen on every interface.
  if (host === '') throw new ConfigError('--host must name an address, got ""')
  const portText = values.port ?? env.PORT ?? String(defaultConfig.port)
  const port = wholeNumberPattern.test(portText) ? Number(portText) : Number.NaN
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConfigError(`--port must be a whole number from 0 to 65535, got "${portText}"`)
  }
  const logLevel = values['log-level'] ?? env.LOG_LEVEL ?? defaultConfig.logLevel
  if (!(logLevels as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`--log-level must be one of ${logLevels.join(', ')}, got "${logLevel}"`)
  }
  // Read by the background threads themselves (storage/backgroundThread.ts); checked here.
  const backgroundNice = backgroundNiceOf(env.POLDER_BACKGROUND_NICE)
  if (backgroundNice instanceof Error) throw new ConfigError(backgroundNice.message)
  const venue = values.venue ?? env.POLDER_VENUE ?? defaultConfig.venue
  if (!/^[A-Z0-9]{4}$/.test(venue)) {
    throw new ConfigError(
      `--venue must be a Market Identifier Code: four capital letters or digits, got "${venue}"`,
    )
  }
  /** A positive whole number set by the environment alone, else the default. */
  const fromEnv = (
    name: string,
    key:
      | 'wsConnectionsPerIpMax'
      | 'newOrdersPerSecondMax'
      | 'newOrdersPerDayMax'
      | 'rateLimitWeightPerMinute',
  ): number => positiveInteger(name, env[name] ?? String(defaultConfig[key]))
  const publicUrlText = values['public-url'] ?? env.POLDER_PUBLIC_URL
  // Checked here rather than when the key is loaded, after the storage has opened; the message
  // gives its length only, never the secret.
  const secretKeyHex = env.POLDER_SECRET_KEY
  if (secretKeyHex !== undefined && !/^[0-9a-f]{64}$/i.test(secretKeyHex)) {
    throw new ConfigError(
      `POLDER_SECRET_KEY must be 64 hexadecimal characters, got ${secretKeyHex.length === 64 ? '64 characters, not all hexadecimal' : `${secretKeyHex.length} characters`}`,
    )
  }
  return {
    ...defaultConfig,
    venue,
    publicUrl: publicUrlText ? publicUrlOf(publicUrlText) : undefined,
    trustProxy: trustProxyOf(values['trust-proxy'] ?? env.POLDER_TRUST_PROXY),
    host,
    port,
    logLevel: logLevel as ExchangeConfig['logLevel'],
    dataDir: values.data ?? env.POLDER_DATA ?? defaultConfig.dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    secretKeyHex,
    simulator: !values['no-simulator'],
    seed: positiveInteger('--seed', values.seed ?? String(defaultConfig.seed)),
    simulatorRequoteMs: positiveInteger(
      '--simulator-requote-ms',
      values['simulator-requote-ms'] ??
        env.POLDER_SIMULATOR_REQUOTE_MS ??
        String(defaultConfig.simulatorRequoteMs),
    ),
    withdrawalDelayMs: nonNegativeInteger(
      '--withdrawal-delay-ms',
      values['withdrawal-delay-ms'] ??
        env.POLDER_WITHDRAWAL_DELAY_MS ??
        String(defaultConfig.withdrawalDelayMs),
    ),
    tradeRetentionDays: nonNegativeInteger(
      '--trade-retention-days',
      values['trade-retention-days'] ??
        env.POLDER_TRADE_RETENTION_DAYS ??
        String(defaultConfig.tradeRetentionDays),
    ),
    wsConnectionsPerIpMax: fromEnv('POLDER_WS_CONNECTIONS_PER_IP_MAX', 'wsConnectionsPerIpMax'),
    newOrdersPerSecondMax: fromEnv('POLDER_NEW_ORDERS_PER_SECOND_MAX', 'newOrdersPerSecondMax'),
    newOrdersPerDayMax: fromEnv('POLDER_NEW_ORDERS_PER_DAY_MAX', 'newOrdersPerDayMax'),
    rateLimitWeightPerMinute: fromEnv(
      'POLDER_RATE_LIMIT_WEIGHT_PER_MINUTE',
      'rateLimitWeightPerMinute',
    ),
  }
}
