// Each account's euros traded over 30 UTC days (src/core/tradingVolume.ts): what sets its fee
// tier and what GET /account reports.
import { describe, expect, it } from 'vitest'
import { TradingVolume } from '../src/core/tradingVolume.ts'
import { ledgerDecimals } from '../src/ledger/ledger.ts'

const dayMs = 86_400_000
const euros = (amount: number) => BigInt(amount) * 10n ** BigInt(ledgerDecimals)
const day = (index: number, hour = 12) => index * dayMs + hour * 3_600_000

describe('TradingVolume', () => {
  it('sums the day of now and the 29 before, per account', () => {
    const volume = new TradingVolume()
    volume.record(1, day(100), euros(10))
    volume.record(1, day(100, 23), euros(5))
    volume.record(1, day(129), euros(1))
    volume.record(2, day(129), euros(7))
    expect(volume.euros(1, day(129))).toBe(16)
    expect(volume.euros(2, day(129))).toBe(7)
    expect(volume.euros(3, day(129))).toBe(0)
    // Day 100 leaves the window when day 130 begins.
    expect(volume.euros(1, day(130, 0))).toBe(1)
    // A clock that reads earlier than the newest fill does not hide it.
    expect(volume.euros(1, day(99))).toBe(16)
  })

  it('forgets the days that have left the window as new ones come', () => {
    const volume = new TradingVolume()
    for (let index = 0; index < 100; index += 1) volume.record(1, day(index), euros(1))
    expect(volume.euros(1, day(99))).toBe(30)
    expect(volume.snapshot()).toHaveLength(30 * 3)
  })

  it('forgets in its snapshot the accounts that stopped trading a window ago', () => {
    const volume = new TradingVolume()
    // Days 10 to 39 are the window of day 39: day 9 has left it.
    volume.record(1, day(9), euros(1))
    volume.record(2, day(39), euros(2))
    expect(volume.accounts).toBe(2)
    expect(volume.snapshot()).toEqual([2, 39, euros(2).toString()])
    expect(volume.accounts).toBe(1)
  })

  it('comes back whole from its snapshot, through JSON', () => {
    const volume = new TradingVolume()
    volume.record(1, day(10), euros(100_000) + 1n)
    volume.record(2, day(11), euros(3))
    const restored = TradingVolume.restore(JSON.parse(JSON.stringify(volume.snapshot())))
    expect(restored.of(1, day(11))).toBe(euros(100_000) + 1n)
    expect(restored.euros(2, day(11))).toBe(3)
    expect(TradingVolume.restore(undefined).euros(1, day(11))).toBe(0)
  })
})
