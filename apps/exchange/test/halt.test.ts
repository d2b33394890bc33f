import { describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { ExchangeHaltedError } from '../src/core/exchangeService.ts'
import { createExchangeServer } from '../src/server.ts'
import { testListing } from './fixtures/testListing.ts'

describe('the exchange halts when memory and journal could disagree', () => {
  it('a failed journal write reports a fatal error and refuses every later command', async () => {
    const fatal: Error[] = []
    const server = await createExchangeServer(
      { ...defaultConfig, port: 0, logLevel: 'silent', dataDir: undefined },
      testListing,
      undefined,
      { onFatal: (error) => fatal.push(error) },
    )
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
})
