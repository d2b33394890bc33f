// The rolling daily limits add up what an account did in the last 24 hours from the lists the
// core keeps. Those lists are bounded by count, so what they forget must never be something the
// limits still count: otherwise many small transfers would make a large one disappear.
import { describe, expect, it } from 'vitest'
import { type CoreCommand, ExchangeCore } from '../src/core/exchangeCore.ts'
import { OrderHistory, transfersPerAccountMax } from '../src/core/orderHistory.ts'
import { stringifyInSlices } from '../src/core/stringifyInSlices.ts'
import { type Payment, PaymentBook, paymentsPerAccountMax } from '../src/payments/paymentBook.ts'
import { limitWindowMs, withdrawnCentsSince } from '../src/transfers/transferLimits.ts'

const startMs = 1_800_000_000_000
const euro = 10n ** 18n
const dayMs = 86_400_000

/** A confirmed SEPA payment of account 1, `p-<index>`, made at `created`. */
const confirmedPayment = (index: number, created: number, amountEur = 1n): Payment => ({
  id: `p-${index}`,
  accountId: 1,
  method: 'sepa',
  amount: String(amountEur * euro),
  fee: '0',
  status: 'confirmed',
  providerReference: null,
  failureReason: null,
  created,
  updated: created,
})

describe('what the daily limits count is never forgotten', () => {
  it('a large withdrawal still counts after many small deposits in the same 24 hours', () => {
    const history = new OrderHistory()
    history.recordTransfer(1, {
      kind: 'withdraw',
      timestamp: startMs,
      asset: 'EUR',
      amount: String(99_999n * euro),
      fee: '0',
      reference: 'w-1',
      valueEurCents: 9_999_900,
    })
    // More than twice the kept count, all within the hour.
    for (let index = 0; index < transfersPerAccountMax * 2 + 10; index += 1)
      history.recordTransfer(1, {
        kind: 'deposit',
        timestamp: startMs + 1 + index,
        asset: 'EUR',
        amount: String(euro),
        fee: '0',
        reference: `d-${index}`,
      })
    const now = startMs + 3_600_000
    expect(withdrawnCentsSince(history, 1, now - limitWindowMs, 'euro')).toBe(9_999_900n)
  })

  it('older transfers are still forgotten once the window has passed them', () => {
    const history = new OrderHistory()
    const total = transfersPerAccountMax * 2 + 1
    for (let index = 0; index < total; index += 1)
      history.recordTransfer(1, {
        kind: 'deposit',
        // One every minute: the first ones are days old when the last arrives.
        timestamp: startMs + index * 60_000,
        asset: 'EUR',
        amount: String(euro),
        fee: '0',
        reference: `d-${index}`,
      })
    const kept = history.transfersOf(1, 'deposit')
    expect(kept.length).toBeLessThan(total)
    expect(kept.length).toBeGreaterThanOrEqual(transfersPerAccountMax)
    expect(kept.at(0)!.reference).toBe(`d-${total - 1}`) // newest first
  })

  it('a withdrawal still under way is kept past the window and the count, until it completes', () => {
    const history = new OrderHistory()
    history.recordTransfer(1, {
      kind: 'withdraw',
      timestamp: startMs,
      asset: 'EUR',
      amount: String(euro),
      fee: '0',
      reference: 'w-slow',
      status: 'sending',
    })
    const total = transfersPerAccountMax * 2 + 1
    for (let index = 0; index < total; index += 1)
      history.recordTransfer(1, {
        kind: 'deposit',
        timestamp: startMs + limitWindowMs + index * 60_000,
        asset: 'EUR',
        amount: String(euro),
        fee: '0',
        reference: `d-${index}`,
      })
    expect(history.transfersOf(1, 'withdraw').map((transfer) => transfer.reference)).toEqual([
      'w-slow',
    ])
    // The others before the window still go: one stuck withdrawal does not keep them all.
    expect(history.transfersOf(1, 'deposit').length).toBeLessThanOrEqual(transfersPerAccountMax * 2)
    expect(history.setTransferStatus(1, 'w-slow', 'completed')).toBe(true)
    // Completed, it goes with the next trim.
    for (let index = 0; index < transfersPerAccountMax + 1; index += 1)
      history.recordTransfer(1, {
        kind: 'deposit',
        timestamp: startMs + 2 * limitWindowMs + index * 60_000,
        asset: 'EUR',
        amount: String(euro),
        fee: '0',
        reference: `e-${index}`,
      })
    expect(history.transfersOf(1, 'withdraw')).toEqual([])
  })

  it('a payment still counts against the deposit limit after many more in the same 24 hours', () => {
    const book = new PaymentBook()
    const payment = (index: number, amountEur: bigint) =>
      confirmedPayment(index, startMs + index, amountEur)
    book.add(payment(0, 90_000n))
    for (let index = 1; index <= paymentsPerAccountMax * 2 + 1; index += 1)
      book.add(payment(index, 1n))
    const counted = book.startedSince(1, startMs + 3_600_000 - limitWindowMs)
    expect(counted).toBe((90_000n + BigInt(paymentsPerAccountMax * 2 + 1)) * euro)
  })

  it('payments past the window are forgotten down to the most kept, after a day that kept them all too', () => {
    const book = new PaymentBook()
    const payment = (index: number, created: number) => confirmedPayment(index, created)
    // A day with more than twice the most kept (a snapshot of before the daily count): all kept.
    const dayOne = paymentsPerAccountMax * 2 + 500
    for (let index = 0; index < dayOne; index += 1) book.add(payment(index, startMs + index))
    expect(book.ofAccount(1)).toHaveLength(dayOne)
    // The next day's payments let go of the first day's, down to the most kept, then add on.
    const dayTwoMs = startMs + limitWindowMs + dayOne
    for (let index = 0; index < 600; index += 1) book.add(payment(dayOne + index, dayTwoMs + index))
    expect(book.ofAccount(1).length).toBeLessThanOrEqual(paymentsPerAccountMax * 2)
    expect(book.ofAccount(1)[0]!.id).toBe(`p-${dayOne + 599}`)
    expect(book.startedSince(1, dayTwoMs - 1)).toBe(600n * euro)
    expect(book.maxStartedSince(1, dayTwoMs - 1, 600)).toBe(dayTwoMs)
    expect(book.maxStartedSince(1, dayTwoMs - 1, 601)).toBeUndefined()
  })

  it('forgets the same payments in a core read back from a snapshot as in the one that wrote it', async () => {
    const failed = (id: string, timestamp: number): CoreCommand[] => [
      {
        type: 'startPayment',
        timestamp,
        paymentId: id,
        accountId: 1,
        method: 'sepa-instant',
        amount: String(10n * euro),
        fee: '0',
      },
      { type: 'updatePayment', timestamp, paymentId: id, status: 'failed', failureReason: 'no' },
    ]
    const live = new ExchangeCore()
    const apply = (core: ExchangeCore, commands: CoreCommand[]) => {
      for (const command of commands) expect(core.apply(command).ok).toBe(true)
    }
    // 801 payments on one day and 1,200 two days later (a day of more than the daily count, from
    // before it, or payments a provider left pending): the 2,001st forgets the 801 only.
    for (let i = 0; i < 801; i += 1) apply(live, failed(`old-${i}`, startMs + i))
    for (let i = 0; i < 1_200; i += 1) apply(live, failed(`day2-${i}`, startMs + 2 * dayMs + i))
    expect(live.payments.snapshot()).toHaveLength(1_200)
    const restored = new ExchangeCore(JSON.parse(await stringifyInSlices(live.snapshot(), 50, 0)))
    // The journal after the snapshot, applied to both: they keep and forget alike.
    for (let i = 0; i < 1_001; i += 1) {
      const commands = failed(`day4-${i}`, startMs + 4 * dayMs + i)
      apply(live, commands)
      apply(restored, commands)
    }
    expect(restored.payments.snapshot()).toEqual(live.payments.snapshot())
    for (const id of ['day2-0', 'day2-1199']) {
      const again = failed(id, startMs + 4 * dayMs + 2_000)[0]!
      expect(restored.apply(again).ok, id).toBe(live.apply(again).ok)
    }
  })
})
