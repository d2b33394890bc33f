import { describe, expect, it } from 'vitest'
import { isValidAddress, isValidIban, sandboxIban } from '../src/transfers/addresses.ts'

describe('euro withdrawal destinations', () => {
  it('accepts IBANs of SEPA countries, with or without the usual spaces', () => {
    for (const iban of [
      'NL91ABNA0417164300',
      'NL91 ABNA 0417 1643 00',
      'DE89370400440532013000',
      'FR1420041010050500013M02606',
      'BE68539007547034',
      'GB29NWBK60161331926819',
      'IT60X0542811101000000123456',
    ])
      expect(isValidIban(iban), iban).toBe(true)
  })

  it('refuses wrong check digits, wrong lengths, other countries and other shapes', () => {
    for (const text of [
      'NL92ABNA0417164300', // check digits off by one
      'NL91ABNA041716430', // one digit short
      'DE8937040044053201300', // German length is 22
      'US12345678901234567890', // not a SEPA country
      'nl91abna0417164300', // lower case
      'NL91-ABNA-0417-1643-00',
      '0x52908400098527886E0F7030069857D2E4169EE7',
      '',
    ])
      expect(isValidIban(text), text).toBe(false)
  })

  it('the sandbox deposit IBANs are valid IBANs', () => {
    for (const accountId of [1, 42, 987_654_321])
      expect(isValidIban(sandboxIban(accountId))).toBe(true)
  })

  it('crypto addresses keep their network shapes', () => {
    expect(isValidAddress('Ethereum', '0x52908400098527886E0F7030069857D2E4169EE7')).toBe(true)
    expect(isValidAddress('Ethereum', 'NL91ABNA0417164300')).toBe(false)
  })
})
