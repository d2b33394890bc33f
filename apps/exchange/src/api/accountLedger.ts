// GET /account/history (privateGetTransactionHistory): an account's trades, deposits and
// withdrawals in one list, newest first, a page at a time. The fills come from the fill archive
// (every fill the account ever had), the transfers from the transfer archive, or for an account
// the archives do not keep, both from the core's memory. A page is placed in the merged list
// without reading every entry before it: see `ledgerPage`.
import type { FillEvent } from '@polder/engine'

/**
 * The ledger's order of fills: newest first, then by market, then the market's newest trade
 * first. The fill archive sorts the same way (fillArchive.ts), so the two sources page alike.
 */
export function compareLedgerFills(a: FillEvent, b: FillEvent): number {
  if (a.timestamp !== b.timestamp) return b.timestamp - a.timestamp
  if (a.market !== b.market) return a.market < b.market ? -1 : 1
  return b.fillId - a.fillId
}

/** How many fills the ledger's window holds, and `limit` of them from the `offset`-th on. */
export type LedgerFills = (
  offset: number,
  limit: number,
) => Promise<{ total: number; fills: FillEvent[] }>

/** Fills held in memory (any order) as a `LedgerFills`. */
export function ledgerFillsOf(fills: readonly FillEvent[]): LedgerFills {
  const sorted = [...fills].sort(compareLedgerFills)
  return async (offset, limit) => ({
    total: sorted.length,
    fills: sorted.slice(offset, offset + limit),
  })
}

export type LedgerEntry<Transfer> =
  | { kind: 'fill'; fill: FillEvent }
  | { kind: 'transfer'; transfer: Transfer }

/**
 * Entries `offset` to `offset + limit` of the ledger that merges the transfers (newest first)
 * with the fills `readFills` gives, and how many entries the ledger has. A transfer comes after
 * the fills of its own millisecond. `transfers` holds the newest of them, at least `offset +
 * limit` (all, when fewer), out of `transferCount`.
 *
 * A ledger entry's place is at most the number of transfers after its place among the fills, so
 * the page needs only the fills from `offset - transferCount` on, and the newest `offset + limit`
 * transfers: the reads are as deep as the page, not as the account's history. A fill's place is
 * its place among the fills plus the transfers newer than it (once every transfer held is newer,
 * it is past the page anyway). The places left over on the page are transfers, in order.
 */
export async function ledgerPage<Transfer extends { timestamp: number }>(
  transfers: readonly Transfer[],
  readFills: LedgerFills,
  offset: number,
  limit: number,
  transferCount = transfers.length,
): Promise<{ total: number; entries: LedgerEntry<Transfer>[] }> {
  const firstFill = Math.max(0, offset - transferCount)
  const { total: fillCount, fills } = await readFills(firstFill, offset + limit - firstFill)
  const total = fillCount + transferCount
  const places: number[] = []
  let newerTransfers = 0
  for (const [index, fill] of fills.entries()) {
    while (
      newerTransfers < transfers.length &&
      transfers[newerTransfers]!.timestamp > fill.timestamp
    )
      newerTransfers += 1
    places.push(firstFill + index + newerTransfers)
  }
  const entries: LedgerEntry<Transfer>[] = []
  let next = 0 // the first fill read that is not yet placed
  for (let place = offset; place < Math.min(offset + limit, total); place += 1) {
    while (next < fills.length && places[next]! < place) next += 1
    if (next < fills.length && places[next] === place) {
      entries.push({ kind: 'fill', fill: fills[next]! })
      next += 1
    } else {
      // Every fill before this place is one read before `next`, or one before `firstFill`.
      const transfer = transfers[place - firstFill - next]
      // Only a count that disagrees with the fills read can leave a place empty: the page ends.
      if (transfer === undefined) break
      entries.push({ kind: 'transfer', transfer })
    }
  }
  return { total, entries }
}
