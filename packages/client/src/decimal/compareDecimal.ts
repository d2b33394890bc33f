// Exact comparison of decimal strings in plain notation (`-?\d+(\.\d+)?`, the protocol's
// decimalString) without parsing them into floats: two prices that round to the same double
// (e.g. '0.30000000000000001' and '0.3') still compare as different, and '1.50' equals '1.5'.
// No allocation: it walks the characters.

const zero = 48 // '0'
const dot = 46 // '.'
const minus = 45 // '-'

function integerEnd(text: string, from: number): number {
  const index = text.indexOf('.', from)
  return index < 0 ? text.length : index
}

/** Compare two non-negative decimal strings: negative, 0 or positive like a sort comparator. */
function compareUnsigned(a: string, aFrom: number, b: string, bFrom: number): number {
  // Skip leading zeros of the integer parts.
  let ai = aFrom
  const aIntEnd = integerEnd(a, aFrom)
  while (ai < aIntEnd && a.charCodeAt(ai) === zero) ai += 1
  let bi = bFrom
  const bIntEnd = integerEnd(b, bFrom)
  while (bi < bIntEnd && b.charCodeAt(bi) === zero) bi += 1
  const aIntLength = aIntEnd - ai
  const bIntLength = bIntEnd - bi
  if (aIntLength !== bIntLength) return aIntLength - bIntLength
  while (ai < aIntEnd) {
    const difference = a.charCodeAt(ai) - b.charCodeAt(bi)
    if (difference !== 0) return difference
    ai += 1
    bi += 1
  }
  // Fractions: a missing digit counts as '0'.
  ai = aIntEnd + 1
  bi = bIntEnd + 1
  while (ai < a.length || bi < b.length) {
    const aDigit = ai < a.length ? a.charCodeAt(ai) : zero
    const bDigit = bi < b.length ? b.charCodeAt(bi) : zero
    if (aDigit !== bDigit) return aDigit - bDigit
    ai += 1
    bi += 1
  }
  return 0
}

/** True when the decimal string is zero ('0', '0.000', '-0'). */
export function isZeroDecimal(text: string): boolean {
  if (text === '0') return true
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index)
    if (code !== zero && code !== dot && code !== minus) return false
  }
  return true
}

/** Exact order of two decimal strings: negative when a < b, 0 when equal, positive when a > b. */
export function compareDecimals(a: string, b: string): number {
  const aNegative = a.charCodeAt(0) === minus && !isZeroDecimal(a)
  const bNegative = b.charCodeAt(0) === minus && !isZeroDecimal(b)
  if (aNegative !== bNegative) return aNegative ? -1 : 1
  const aFrom = a.charCodeAt(0) === minus ? 1 : 0
  const bFrom = b.charCodeAt(0) === minus ? 1 : 0
  const unsigned = compareUnsigned(a, aFrom, b, bFrom)
  const sign = unsigned < 0 ? -1 : unsigned > 0 ? 1 : 0
  return aNegative && sign !== 0 ? -sign : sign
}
