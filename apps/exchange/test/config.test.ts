// Server configuration: flags win over the environment, which wins over the defaults; a bad
// value is a ConfigError naming the flag.
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
