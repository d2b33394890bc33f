// The subscriptions of one WebSocket connection (protocol §6.3). Subscribing to something
// already active is a no-op that is still confirmed; every confirmation lists all subscriptions
// of the connection.
import type { SubscriptionChannel } from '@polder/protocol'

export type ChannelName = SubscriptionChannel['name']
type MarketChannel = Exclude<ChannelName, 'candles' | 'account'>

/** Most (channel, market[, interval]) subscriptions one connection may hold. */
export const subscriptionsPerConnectionMax = 2_000

export class TooManySubscriptionsError extends Error {
  override name = 'TooManySubscriptionsError'
}

export class ConnectionSubscriptions {
  readonly #markets = new Map<MarketChannel, Set<string>>()
  readonly #candles = new Map<string, Set<string>>()
  #account: Set<string> | '*' | undefined

  get size(): number {
    let size = 0
    for (const markets of this.#markets.values()) size += markets.size
    for (const markets of this.#candles.values()) size += markets.size
    if (this.#account !== undefined) size += this.#account === '*' ? 1 : this.#account.size
    return size
  }

  has(channel: MarketChannel, market: string): boolean {
    return this.#markets.get(channel)?.has(market) ?? false
  }

  hasCandles(interval: string, market: string): boolean {
    return this.#candles.get(interval)?.has(market) ?? false
  }

  hasAccount(market: string): boolean {
    return this.#account === '*' || (this.#account?.has(market) ?? false)
  }

  /** Adds every channel, or nothing when the result would pass the limit. */
  subscribe(channels: readonly SubscriptionChannel[]): void {
    const trial = this.#clone()
    for (const channel of channels) trial.#apply(channel, true)
    if (trial.size > subscriptionsPerConnectionMax) {
      throw new TooManySubscriptionsError(
        `at most ${subscriptionsPerConnectionMax} subscriptions per connection`,
      )
    }
    for (const channel of channels) this.#apply(channel, true)
  }

  /** Drops the account channel: its account is no longer the connection's. */
  dropAccount(): void {
    this.#account = undefined
  }

  unsubscribe(channels: readonly SubscriptionChannel[]): void {
    for (const channel of channels) this.#apply(channel, false)
  }

  /** The `subscriptions` object of the subscribed/unsubscribed events. */
  describe(): Record<string, unknown> {
    const result: Record<string, unknown> = {}
    for (const [channel, markets] of this.#markets)
      if (markets.size > 0) result[channel] = [...markets]
    const candles: Record<string, string[]> = {}
    for (const [interval, markets] of this.#candles)
      if (markets.size > 0) candles[interval] = [...markets]
    if (Object.keys(candles).length > 0) result.candles = candles
    if (this.#account === '*') result.account = '*'
    else if (this.#account !== undefined && this.#account.size > 0)
      result.account = [...this.#account]
    return result
  }

  #apply(channel: SubscriptionChannel, add: boolean): void {
    if (channel.name === 'account') {
      if (channel.markets === '*') this.#account = add ? '*' : undefined
      else if (add) {
        if (this.#account !== '*') {
          this.#account ??= new Set()
          for (const market of channel.markets) this.#account.add(market)
        }
      } else if (this.#account !== '*' && this.#account !== undefined) {
        for (const market of channel.markets) this.#account.delete(market)
      }
      return
    }
    if (channel.name === 'candles') {
      for (const interval of channel.interval) {
        const markets = this.#candles.get(interval) ?? new Set<string>()
        for (const market of channel.markets) add ? markets.add(market) : markets.delete(market)
        this.#candles.set(interval, markets)
      }
      return
    }
    const markets = this.#markets.get(channel.name) ?? new Set<string>()
    for (const market of channel.markets) add ? markets.add(market) : markets.delete(market)
    this.#markets.set(channel.name, markets)
  }

  #clone(): ConnectionSubscriptions {
    const copy = new ConnectionSubscriptions()
    for (const [channel, markets] of this.#markets) copy.#markets.set(channel, new Set(markets))
    for (const [interval, markets] of this.#candles) copy.#candles.set(interval, new Set(markets))
    copy.#account =
      this.#account === '*' || this.#account === undefined ? this.#account : new Set(this.#account)
    return copy
  }
}
