// Exact integer helpers on safe integers. Division on doubles is corrected by one step so the
// result is exact for every |a| <= 2^53 (the quotient of two doubles may round across an integer).

/** floor(a / b) for safe integers a and b > 0. */
export function floorDiv(a: number, b: number): number {
  let quotient = Math.floor(a / b)
  if (quotient * b > a) quotient--
  else if ((quotient + 1) * b <= a) quotient++
  return quotient
}

/** ceil(a / b) for safe integers a and b > 0. */
export function ceilDiv(a: number, b: number): number {
  const quotient = floorDiv(a, b)
  return quotient * b === a ? quotient : quotient + 1
}

const ppmScale = 1_000_000

/**
 * The fee on a notional: ceil(notional × ppm / 10^6), rounded UP (towards +infinity) to a whole
 * number of `step` quote units (the market's notional unit). Up for a fee means the exchange
 * never undercharges; for a rebate (ppm < 0) it means the rebate is rounded towards zero.
 */
export function feeFor(notional: number, ppm: number, step: number): number {
  if (ppm === 0 || notional === 0) return 0
  const product = notional * ppm
  const divisor = ppmScale * step
  if (Number.isSafeInteger(product) && Number.isSafeInteger(divisor)) {
    return ceilDiv(product, divisor) * step
  }
  const bigProduct = BigInt(notional) * BigInt(ppm)
  const bigDivisor = BigInt(divisor)
  let quotient = bigProduct / bigDivisor // truncates towards zero
  if (quotient * bigDivisor < bigProduct) quotient += 1n
  return Number(quotient) * step
}
