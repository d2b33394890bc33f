import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import * as engine from '../src/index.ts'

test('the public entry exports exactly these values', () => {
  expect(Object.keys(engine).sort()).toEqual([
    'Engine',
    'EngineConfigError',
    'EngineInvariantError',
    'ErrorCode',
    'EventLog',
    'FastBook',
    'Order',
    'ReferenceBook',
    'closedOrdersRememberedMaxDefault',
    'decimalsOf',
    'errorMessage',
    'feeFor',
    'feeForRoles',
    'feePpmMax',
    'formatAmount',
    'formatDecimal',
    'formatPrice',
    'formatQuote',
    'isOpenStatus',
    'marketProtectionPpmDefault',
    'marketSpecFromConfig',
    'openOrdersPerMarketMaxDefault',
    'orderToWire',
    'parseBigDecimal',
    'parseDecimal',
    'placeOrderFromWire',
    'restFeeAtMost',
    'significantDigits',
    'toState',
    'updateOrderFromWire',
  ])
})

test('the engine reads no clock and no randomness (tsconfig.json already refuses process and console)', () => {
  const directory = join(import.meta.dirname, '..', 'src')
  for (const file of readdirSync(directory)) {
    const text = readFileSync(join(directory, file), 'utf8')
    expect(text, file).not.toMatch(/Date\.now|new Date|Math\.random|performance\.|crypto\./)
  }
})
