import { describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { ExchangeHaltedError } from '../src/core/exchangeService.ts'
import { createExchangeServer } from '../src/server.ts'
import { testListing } from './fixtures/testListing.ts'

/** A server whose fatal errors are collected instead of ending the process. */
async function serverThatReportsFatal() {
  const fatal: Error[] = []
  const server = await createExchangeServer(
    { ...defaultConfig, port: 0, logLevel: 'silent', dataDir: undefined },
    testListing,
    undefined,
    { onFatal: (error) => fatal.push(error) },
  )
  return { server, fatal }
}

describe('the exchange halts when memory and journal could disagree', () => {
  it('a failed journal write reports a fatal error and refuses every later command', async () => {
    const { server, fatal } = await serverThatReportsFatal()
    try {
      const deposit = (reference: string) =>
        server.service.submit({
          type: 'deposit',
          timestamp: 1,
          accountId: 1,
          asset: 'EUR',
          amount: '100',
          reference,
        })
      expect((await deposit('first')).ok).toBe(true)
      await server.journal.backend.close() // every later journal write fails
      await expect(deposit('second')).rejects.toBeInstanceOf(ExchangeHaltedError)
      expect(fatal).toHaveLength(1)
      await expect(deposit('third')).rejects.toBeInstanceOf(ExchangeHaltedError)
    } finally {
      await server.close().catch(() => {})
    }
  })

  it('a cancel-on-disconnect carried out before a command that fails halts it: that command is refused', async () => {
    const { server, fatal } = await serverThatReportsFatal()
    try {
      const core = server.service.core
      const deposit = (reference: string, timestamp: number) =>
        server.service.submit({
          type: 'deposit',
          timestamp,
          accountId: 1,
          asset: 'EUR',
          amount: '100',
          reference,
        })
      expect((await deposit('first', 1)).ok).toBe(true)
      const armed = await server.service.submit({
        type: 'setCancelDeadline',
        timestamp: 1,
        accountId: 1,
        codGroupId: 1,
        expiresAtMs: 1_000,
      })
      expect(armed.ok).toBe(true)
      const apply = core.apply.bind(core)
      core.apply = (command) => {
        if (command.type === 'cancelExpiredGroup') throw new Error('the cancel failed')
        return apply(command)
      }
      const before = core.ledger.balance(1, 'EUR').available
      // Past the deadline: the cancel comes first, fails, and the deposit must not follow it.
      await expect(deposit('second', 1_000)).rejects.toBeInstanceOf(ExchangeHaltedError)
      expect(fatal).toHaveLength(1)
      expect(core.ledger.balance(1, 'EUR').available).toBe(before)
    } finally {
      await server.close().catch(() => {})
    }
  })
})
