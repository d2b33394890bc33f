import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ArrayView, RawJson, stringifyInSlices } from '../src/core/stringifyInSlices.ts'

describe('stringifyInSlices', () => {
  it('writes exactly what JSON.stringify writes, for any JSON-like value', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.anything({
          maxDepth: 6,
          maxKeys: 40,
          withDate: true,
          withNullPrototype: true,
          withSparseArray: false,
          withBigInt: false,
          withMap: false,
          withSet: false,
          withTypedArray: false,
          withBoxedValues: false,
        }),
        async (value) => {
          expect(await stringifyInSlices(value, 0)).toBe(JSON.stringify(value) ?? 'null')
        },
      ),
      { seed: 20261125, numRuns: 300 },
    )
  })

  it('walks long arrays and objects near the top the same way (undefined, functions, toJSON)', async () => {
    const long = Array.from({ length: 100 }, (_, index) => ({
      index,
      skipped: undefined,
      at: new Date(index * 1_000),
      list: [1, undefined, () => 0, 'x'],
    }))
    const value = {
      long,
      nested: {
        long: [...long],
        more: Object.fromEntries(long.map((item) => [`k${item.index}`, item])),
      },
    }
    expect(await stringifyInSlices(value, 0)).toBe(JSON.stringify(value))
  })

  it('puts raw JSON in as it is', async () => {
    expect(await stringifyInSlices({ a: new RawJson('[1,2]'), b: 3 })).toBe('{"a":[1,2],"b":3}')
  })

  it('lets the event loop run while it writes a large value', async () => {
    const value = {
      orders: Array.from({ length: 200_000 }, (_, index) => ({
        orderId: `order-${index}`,
        amount: String(index),
        fills: [{ price: index, amount: 1 }],
      })),
    }
    let timerRuns = 0
    const timer = setInterval(() => {
      timerRuns += 1
    }, 1)
    const text = await stringifyInSlices(value, 2)
    clearInterval(timer)
    expect(text).toBe(JSON.stringify(value))
    expect(timerRuns).toBeGreaterThan(5) // a single synchronous stringify would let none run
  })

  it('writes an ArrayView as the array it stands for, as JSON.stringify does through toJSON', async () => {
    const items = [{ a: 1, b: [2, 3] }, undefined, 'text', null, [{ c: undefined }], () => 1]
    const view = new ArrayView(items.length, (index) => items[index])
    const value = { view, nested: { deeper: { deepest: { view } } } }
    expect(await stringifyInSlices(value, 0)).toBe(JSON.stringify(value))
    expect(JSON.stringify(view)).toBe(JSON.stringify(items))
    expect([...view]).toEqual(items)
  })
})
