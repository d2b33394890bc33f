import { describe, expect, test } from 'vitest'
import {
  addDecimals,
  chartChange,
  createThemeStore,
  decimalPrecision,
  decimalRounding,
  formatDate,
  formatPercent,
  PolderDecimal,
  type ThemeStorage,
} from '../src/index.ts'

// Spec §3, §4, §5, §9 (part 13): presentation helpers and the theme store (in Node, through the
// storage and root adapters).

describe('spec §3 chart change', () => {
  test('change = (last price − first price) / first price × 100, shown with 2 decimals', () => {
    expect(chartChange(['100', '90', '112.345'])).toBe('12.35')
    expect(chartChange(['0.3', '0.1'])).toBe('-66.67')
  })

  test('the current price replaces the last point when given', () => {
    expect(chartChange(['100', '120'], '150')).toBe('50.00')
  })

  test('change is 0 with fewer than two points', () => {
    expect(chartChange([])).toBe('0.00')
    expect(chartChange(['100'], '200')).toBe('0.00')
  })
})

describe('spec §5 percent format', () => {
  test('en-GB, at most 2 fraction digits, sign shown except for zero', () => {
    expect(formatPercent(1.5)).toBe('+1.5%')
    expect(formatPercent('-12.3456')).toBe('-12.35%')
    expect(formatPercent('1234.5')).toBe('+1,234.5%')
    expect(formatPercent(0)).toBe('0%')
    expect(formatPercent('-0.001')).toBe('0%')
  })
})

describe('spec §3 dates', () => {
  test('dates show as short month, day, numeric year', () => {
    expect(formatDate(Date.UTC(2026, 10, 22), { timeZone: 'UTC' })).toBe('Nov 22, 2026')
    expect(formatDate('2026-01-05T10:00:00Z', { timeZone: 'UTC', locale: 'de-DE' })).toBe(
      '5. Jan. 2026',
    )
  })

  test('an invalid date shows as an empty string', () => {
    expect(formatDate('not a date')).toBe('')
    expect(formatDate(Number.NaN)).toBe('')
  })
})

describe('spec §9 decimal arithmetic', () => {
  test('decimal.js is configured with precision 20 and rounding mode 4', () => {
    expect(decimalPrecision).toBe(20)
    expect(decimalRounding).toBe(4)
    expect(PolderDecimal.precision).toBe(20)
    expect(PolderDecimal.rounding).toBe(PolderDecimal.ROUND_HALF_UP)
    expect(new PolderDecimal(2).div(3).toString()).toBe('0.66666666666666666667')
    expect(new PolderDecimal('0.1').plus('0.2').toString()).toBe('0.3')
    expect(new PolderDecimal('2.5').toDecimalPlaces(0).toString()).toBe('3')
  })

  test('addDecimals is exact past 20 digits: 1.2 trillion BTT at 8 decimals to the unit', () => {
    expect(addDecimals('1200000000000.12345678', '0.00000001')).toBe('1200000000000.12345679')
    expect(addDecimals('5000000000000.00000001', '5000000000000.00000001')).toBe(
      '10000000000000.00000002',
    )
    expect(addDecimals('0.1', '0.2')).toBe('0.3')
  })
})

describe('spec §4 theme', () => {
  function setup(stored: Record<string, string> = {}) {
    const storage: ThemeStorage & { data: Record<string, string> } = {
      data: { ...stored },
      getItem(key) {
        return this.data[key] ?? null
      },
      setItem(key, value) {
        this.data[key] = value
      },
    }
    const darkCalls: boolean[] = []
    const store = createThemeStore({ storage, root: { setDark: (dark) => darkCalls.push(dark) } })
    return { store, storage, darkCalls }
  }

  test('the theme is undefined until set', () => {
    const { store } = setup()
    expect(store.getState().theme).toBeUndefined()
    store.getState().hydrate() // nothing stored
    expect(store.getState().theme).toBeUndefined()
  })

  test('the user toggles it and it is stored in local storage under theme', () => {
    const { store, storage } = setup()
    store.getState().toggleTheme()
    expect(store.getState().theme).toBe('dark')
    expect(storage.data).toEqual({ theme: 'dark' })
    store.getState().toggleTheme()
    expect(storage.data).toEqual({ theme: 'light' })
  })

  test('a stored theme is read back', () => {
    const { store } = setup({ theme: 'dark' })
    store.getState().hydrate()
    expect(store.getState().theme).toBe('dark')
  })

  test('dark adds the dark class on the document root (through the root adapter)', () => {
    const { store, darkCalls } = setup()
    store.getState().setTheme('dark')
    store.getState().setTheme('light')
    expect(darkCalls).toEqual([true, false])
  })
})
