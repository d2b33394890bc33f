// The ledger's pages (GET /account/history): transfers held in memory merged with fills read a
// page at a time, against the whole ledger sorted at once.
import type { FillEvent } from '@polder/engine'
import { describe, expect, it } from 'vitest'
import {
  compareLedgerFills,
  type LedgerFills,
  ledgerFillsOf,
  ledgerPage,
} from '../src/api/accountLedger.ts'

type Transfer = { reference: string; timestamp: number }

const markets = ['ADA-EUR', 'BTC-EUR', 'ETH-EUR']

function fillAt(timestamp: number, market: string, fillId: number): FillEvent {
  return {
    type: 'fill',
    market,
    orderId: `order-${fillId}`,
    clientOrderId: null,
    accountId: 1,
    fillId,
    timestamp,
    side: 'buy',
    price: 1,
    amount: 1,
    quote: 1,
    taker: true,
    fee: 0,
    feeCurrency: 'EUR',
  }
}

/** A seeded generator of whole numbers below `below`. */
function numbers(seed: number) {
  return (below: number) => {
    seed = (seed * 48_271) % 2_147_483_647
    return seed % below
  }
}

/** Reads as `ledgerFillsOf` does, and counts the fills each read returns. */
function counted(fills: LedgerFills) {
  const reads: { offset: number; limit: number; returned: number }[] = []
  const read: LedgerFills = async (offset, limit) => {
    const page = await fills(offset, limit)
    reads.push({ offset, limit, returned: page.fills.length })
    return page
  }
  return { read, reads }
}

const label = (entry: { kind: string; fill?: FillEvent; transfer?: Transfer }) =>
  entry.kind === 'fill'
    ? `fill ${entry.fill!.market} ${entry.fill!.fillId}`
    : `transfer ${entry.transfer!.reference}`

describe('the ledger, a page at a time', () => {
  it('orders fills by time, then market, then the newest trade first', () => {
    const fills = [
      fillAt(5, 'ETH-EUR', 3),
      fillAt(5, 'BTC-EUR', 9),
      fillAt(7, 'ETH-EUR', 1),
      fillAt(5, 'BTC-EUR', 10),
    ]
    expect(fills.sort(compareLedgerFills).map((fill) => `${fill.market} ${fill.fillId}`)).toEqual([
      'ETH-EUR 1',
      'BTC-EUR 10',
      'BTC-EUR 9',
      'ETH-EUR 3',
    ])
  })

  it('gives every page of the merged ledger as sorting it whole would, reading no deeper than the page', async () => {
    const next = numbers(11)
    for (let round = 0; round < 40; round += 1) {
      // Times from a narrow range, so fills and transfers often share a millisecond.
      const span = 1 + next(60)
      const fills = Array.from({ length: next(4) === 0 ? 0 : next(250) }, (_, index) =>
        fillAt(next(span), markets[next(markets.length)]!, index + 1),
      )
      const transfers: Transfer[] = Array.from(
        { length: next(4) === 0 ? 0 : next(40) },
        (_, index) => ({ reference: `t${index}`, timestamp: next(span) }),
      ).sort((a, b) => b.timestamp - a.timestamp)
      // The whole ledger: a transfer after the fills of its millisecond (a stable sort keeps
      // the fills, placed first, ahead, and each list in its own order).
      const whole = [
        ...[...fills]
          .sort(compareLedgerFills)
          .map((fill) => ({ kind: 'fill', fill, at: fill.timestamp })),
        ...transfers.map((transfer) => ({ kind: 'transfer', transfer, at: transfer.timestamp })),
      ].sort((a, b) => b.at - a.at)
      const limit = 1 + next(30)
      const pages = Math.ceil(whole.length / limit)
      for (let page = 0; page <= pages; page += 1) {
        const { read, reads } = counted(ledgerFillsOf(fills))
        const result = await ledgerPage(transfers, read, page * limit, limit)
        const context = JSON.stringify({ round, page, limit, fills: fills.length })
        expect(result.total, context).toBe(whole.length)
        expect(result.entries.map(label), context).toEqual(
          whole.slice(page * limit, (page + 1) * limit).map(label),
        )
        // One read, starting no earlier than the transfers could push a fill onto the page.
        expect(reads, context).toHaveLength(1)
        expect(reads[0]!.offset, context).toBe(Math.max(0, page * limit - transfers.length))
        expect(reads[0]!.offset + reads[0]!.limit, context).toBe((page + 1) * limit)
        // Given only the newest transfers the page can reach, and their count: the same page.
        const newest = transfers.slice(0, (page + 1) * limit)
        const fromNewest = await ledgerPage(
          newest,
          ledgerFillsOf(fills),
          page * limit,
          limit,
          transfers.length,
        )
        expect(fromNewest, context).toEqual(result)
      }
    }
  })

  it('stops a page short rather than invent an entry when the fills change under it', async () => {
    // A count that says more fills than the read brings (as a store read twice could).
    const transfers: Transfer[] = [{ reference: 'deposit', timestamp: 1 }]
    const result = await ledgerPage(
      transfers,
      async () => ({ total: 5, fills: [fillAt(9, 'BTC-EUR', 2)] }),
      0,
      10,
    )
    expect(result.entries.map(label)).toEqual(['fill BTC-EUR 2', 'transfer deposit'])
  })
})
