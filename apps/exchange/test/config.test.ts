// Server configuration: flags win over the environment, which wins over the defaults; a bad
// value is a ConfigError naming the flag.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, defaultConfig, parseConfig } from '../src/config.ts'

describe('withdrawal confirmation delay', () => {
  it('defaults to a few seconds, and comes from the flag or POLDER_WITHDRAWAL_DELAY_MS', () => {
    expect(parseConfig([], {}).withdrawalDelayMs).toBe(defaultConfig.withdrawalDelayMs)
    expect(defaultConfig.withdrawalDelayMs).toBe(6_000)
    expect(parseConfig([], { POLDER_WITHDRAWAL_DELAY_MS: '250' }).withdrawalDelayMs).toBe(250)
    expect(
      parseConfig(['--withdrawal-delay-ms', '0'], { POLDER_WITHDRAWAL_DELAY_MS: '250' })
        .withdrawalDelayMs,
    ).toBe(0)
  })

  it('refuses what is not a whole number of milliseconds', () => {
    for (const text of ['-1', '1.5', 'soon'])
      expect(() => parseConfig([`--withdrawal-delay-ms=${text}`], {}), text).toThrow(ConfigError)
    expect(() => parseConfig([], { POLDER_WITHDRAWAL_DELAY_MS: '-5' })).toThrow(
      '--withdrawal-delay-ms must be a whole number from 0, got "-5"',
    )
  })
})

describe('simulator rate', () => {
  it('re-quotes each market every 15 s by default; the flag or POLDER_SIMULATOR_REQUOTE_MS sets it', () => {
    expect(parseConfig([], {}).simulatorRequoteMs).toBe(15_000)
    expect(parseConfig([], { POLDER_SIMULATOR_REQUOTE_MS: '60000' }).simulatorRequoteMs).toBe(
      60_000,
    )
    expect(
      parseConfig(['--simulator-requote-ms', '5000'], { POLDER_SIMULATOR_REQUOTE_MS: '60000' })
        .simulatorRequoteMs,
    ).toBe(5_000)
    for (const text of ['0', '-1', 'fast'])
      expect(() => parseConfig([`--simulator-requote-ms=${text}`], {}), text).toThrow(ConfigError)
  })
})

describe('public trade retention', () => {
  it('keeps 7 days by default; the flag or POLDER_TRADE_RETENTION_DAYS sets it, 0 keeps all', () => {
    expect(parseConfig([], {}).tradeRetentionDays).toBe(7)
    expect(parseConfig([], { POLDER_TRADE_RETENTION_DAYS: '30' }).tradeRetentionDays).toBe(30)
    expect(
      parseConfig(['--trade-retention-days', '0'], { POLDER_TRADE_RETENTION_DAYS: '30' })
        .tradeRetentionDays,
    ).toBe(0)
    expect(() => parseConfig(['--trade-retention-days=1.5'], {})).toThrow(
      '--trade-retention-days must be a whole number from 0, got "1.5"',
    )
  })
})

describe('venue', () => {
  it('is PLDR unless the flag or POLDER_VENUE names a Market Identifier Code', () => {
    expect(parseConfig([], {}).venue).toBe('PLDR')
    expect(parseConfig([], { POLDER_VENUE: 'XAMS' }).venue).toBe('XAMS')
    expect(parseConfig(['--venue', 'AB12'], { POLDER_VENUE: 'XAMS' }).venue).toBe('AB12')
    for (const text of ['xams', 'XAM', 'XAMSX', 'XA-S'])
      expect(() => parseConfig(['--venue', text], {}), text).toThrow(
        `--venue must be a Market Identifier Code: four capital letters or digits, got "${text}"`,
      )
  })
})

describe('background threads priority', () => {
  it('takes POLDER_BACKGROUND_NICE from 0 to 19 and refuses anything else at start', () => {
    for (const text of ['0', '10', '19'])
      expect(() => parseConfig([], { POLDER_BACKGROUND_NICE: text }), text).not.toThrow()
    for (const text of ['-1', '20', '2.5', 'low'])
      expect(() => parseConfig([], { POLDER_BACKGROUND_NICE: text }), text).toThrow(ConfigError)
    expect(() => parseConfig([], { POLDER_BACKGROUND_NICE: '20' })).toThrow(
      'POLDER_BACKGROUND_NICE must be a whole number from 0 to 19, got "20"',
    )
  })
})

describe('public URL', () => {
  it('is unset by default, and comes from the flag or POLDER_PUBLIC_URL without a trailing slash', () => {
    expect(parseConfig([], {}).publicUrl).toBeUndefined()
    expect(parseConfig([], { POLDER_PUBLIC_URL: 'https://polder.example/' }).publicUrl).toBe(
      'https://polder.example',
    )
    expect(
      parseConfig(['--public-url', 'https://polder.example/api/'], {
        POLDER_PUBLIC_URL: 'https://other.example',
      }).publicUrl,
    ).toBe('https://polder.example/api')
  })

  it('refuses what is not an http or https URL without query or fragment', () => {
    for (const text of ['polder.example', 'ftp://polder.example', 'https://a.example/?x=1'])
      expect(() => parseConfig([`--public-url=${text}`], {}), text).toThrow(ConfigError)
  })
})

describe('trusted proxies', () => {
  it('are none by default, and a list from the flag or POLDER_TRUST_PROXY', () => {
    expect(parseConfig([], {}).trustProxy).toBeUndefined()
    expect(parseConfig([], { POLDER_TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe(
      'loopback,10.0.0.0/8',
    )
    expect(parseConfig(['--trust-proxy', '192.0.2.1'], {}).trustProxy).toBe('192.0.2.1')
  })

  it('refuses what is not an address, a range or a known name', () => {
    for (const text of ['proxy.example', '10.0.0.0/99', 'everything'])
      expect(() => parseConfig([`--trust-proxy=${text}`], {}), text).toThrow(ConfigError)
  })
})

describe('values as an environment gives them', () => {
  it('a variable set to nothing is unset, not an empty host (every interface), port 0 or a 0', () => {
    // As an env file or a compose file leaves one: `HOST=`.
    for (const name of [
      'HOST',
      'PORT',
      'LOG_LEVEL',
      'POLDER_DATA',
      'POLDER_SECRET_KEY',
      'POLDER_SIMULATOR_REQUOTE_MS',
      'POLDER_WITHDRAWAL_DELAY_MS',
      'POLDER_TRADE_RETENTION_DAYS',
      'POLDER_TRUST_PROXY',
      'POLDER_PUBLIC_URL',
      'POLDER_VENUE',
      'POLDER_WS_CONNECTIONS_PER_IP_MAX',
      'POLDER_NEW_ORDERS_PER_SECOND_MAX',
      'POLDER_NEW_ORDERS_PER_DAY_MAX',
      'POLDER_RATE_LIMIT_WEIGHT_PER_MINUTE',
      'POLDER_BACKGROUND_NICE',
    ])
      expect(parseConfig([], { [name]: '' }), name).toEqual(parseConfig([], {}))
  })

  it('a whole number is digits only: not hexadecimal, an exponent, a sign, a fraction or spaces', () => {
    for (const text of ['0x1f90', '1e3', '+80', '80.0', ' 80', '80 ', ''])
      expect(() => parseConfig([`--port=${text}`], {}), text).toThrow(
        `--port must be a whole number from 0 to 65535, got "${text}"`,
      )
    expect(() => parseConfig([], { PORT: '0x1f90' })).toThrow(
      '--port must be a whole number from 0 to 65535, got "0x1f90"',
    )
    for (const [name, flag] of [
      ['POLDER_WITHDRAWAL_DELAY_MS', '--withdrawal-delay-ms'],
      ['POLDER_TRADE_RETENTION_DAYS', '--trade-retention-days'],
      ['POLDER_SIMULATOR_REQUOTE_MS', '--simulator-requote-ms'],
      ['POLDER_WS_CONNECTIONS_PER_IP_MAX', 'POLDER_WS_CONNECTIONS_PER_IP_MAX'],
      ['POLDER_RATE_LIMIT_WEIGHT_PER_MINUTE', 'POLDER_RATE_LIMIT_WEIGHT_PER_MINUTE'],
      ['POLDER_BACKGROUND_NICE', 'POLDER_BACKGROUND_NICE'],
    ] as const)
      for (const text of ['0x10', '1e1', '+5']) {
        const parse = () => parseConfig([], { [name]: text })
        expect(parse, `${name}=${text}`).toThrow(ConfigError)
        expect(parse, `${name}=${text}`).toThrow(`${flag} must be a`)
        expect(parse, `${name}=${text}`).toThrow(`, got "${text}"`)
      }
    expect(() => parseConfig(['--seed', '1e3'], {})).toThrow(
      '--seed must be a positive whole number, got "1e3"',
    )
    expect(parseConfig([], { PORT: '8081', POLDER_WITHDRAWAL_DELAY_MS: '007' })).toMatchObject({
      port: 8081,
      withdrawalDelayMs: 7,
    })
  })

  it('an empty --host is refused: it would listen on every interface', () => {
    expect(() => parseConfig(['--host='], {})).toThrow('--host must name an address, got ""')
  })
})

describe('secret key', () => {
  it('POLDER_SECRET_KEY is 64 hexadecimal characters, checked with the rest of the configuration', () => {
    const key = 'aB'.repeat(32)
    expect(parseConfig([], { POLDER_SECRET_KEY: key }).secretKeyHex).toBe(key)
    expect(() => parseConfig([], { POLDER_SECRET_KEY: 'abc' })).toThrow(
      new ConfigError('POLDER_SECRET_KEY must be 64 hexadecimal characters, got 3 characters'),
    )
    // The message never shows the value, a secret.
    expect(() => parseConfig([], { POLDER_SECRET_KEY: 'g'.repeat(64) })).toThrow(
      'POLDER_SECRET_KEY must be 64 hexadecimal characters, got 64 characters, not all hexadecimal',
    )
  })
})

describe('README', () => {
  it('documents every environment variable the server reads', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8')
    const read = new Set<string>()
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name)
        if (entry.isDirectory()) walk(path)
        else if (entry.name.endsWith('.ts'))
          // `env.NAME`, `env['NAME']`, and the names config.ts's fromEnv is given.
          for (const match of readFileSync(path, 'utf8').matchAll(
            /\benv(?:\.|\[')([A-Z][A-Z0-9_]+)|\bfromEnv\(\s*'([A-Z][A-Z0-9_]+)'/g,
          ))
            read.add((match[1] ?? match[2])!)
      }
    }
    walk(join(import.meta.dirname, '..', 'src'))
    expect(read).toContain('POLDER_RATE_LIMIT_WEIGHT_PER_MINUTE') // fromEnv's
    expect(read).toContain('POLDER_SUPERVISED')
    expect([...read].filter((name) => !readme.includes(`\`${name}\``))).toEqual([])
  })
})
