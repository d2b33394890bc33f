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
  return bigFee(BigInt(notional) * BigInt(ppm), divisor, step)
}

/**
 * The fee of a maker notional at `makerPpm` and a taker notional at `takerPpm` together:
 * ceil((maker × makerPpm + taker × takerPpm) / 10^6) rounded up once to a whole `step`, so the
 * two parts cost at most what the whole would at the larger rate.
 */
export function feeForRoles(
  maker: number,
  makerPpm: number,
  taker: number,
  takerPpm: number,
  step: number,
): number {
  if (maker === 0 || makerPpm === 0) return feeFor(taker, takerPpm, step)
  if (taker === 0 || takerPpm === 0) return feeFor(maker, makerPpm, step)
  const makerPart = maker * makerPpm
  const takerPart = taker * takerPpm
  const product = makerPart + takerPart
  const divisor = ppmScale * step
  if (
    Number.isSafeInteger(makerPart) &&
    Number.isSafeInteger(takerPart) &&
    Number.isSafeInteger(product) &&
    Number.isSafeInteger(divisor)
  ) {
    return ceilDiv(product, divisor) * step
  }
  return bigFee(BigInt(maker) * BigInt(makerPpm) + BigInt(taker) * BigInt(takerPpm), divisor, step)
}

/** ceil(product / divisor) × step on big integers (the exact path past 2^53). */
function bigFee(product: bigint, divisor: number, step: number): number {
  const bigDivisor = BigInt(divisor)
  let quotient = product / bigDivisor // truncates towards zero
  if (quotient * bigDivisor < product) quotient += 1n
  return Number(quotient) * step
}
