// Deposit addresses and withdrawal address checks of the sandbox. The exchange holds no keys on
// any network here: deposit addresses are derived per account and network, stable across
// restarts, in each network's usual shape, and withdrawals are checked against the shape.

import { createHash } from 'node:crypto'

const evmNetworks = new Set([
  'Ethereum',
  'Ethereum Classic',
  'Polygon',
  'Arbitrum One',
  'Optimism',
  'Base',
  'BNB Smart Chain',
  'Avalanche C-Chain',
  'Fantom',
  'Sonic',
  'Celo',
  'Cronos',
  'Mantle',
  'Metis',
  'Scroll',
  'ZKsync Era',
  'Manta Pacific',
  'Moonbeam',
  'Ronin',
  'Berachain',
  'Flare',
  'Kava',
  'Hyperliquid',
  'XDC Network',
])
const base58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
const bech32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'

function digest(accountId: number, network: string): Buffer {
  return createHash('sha256').update(`polder-sandbox ${network} ${accountId}`).digest()
}

function encode(bytes: Buffer, alphabet: string, length: number): string {
  let text = ''
  for (let index = 0; text.length < length; index += 1)
    text += alphabet[bytes[index % bytes.length]! % alphabet.length]
  return text
}

/** A sandbox deposit address for an account on a network. */
export function sandboxDepositAddress(accountId: number, network: string): string {
  const bytes = digest(accountId, network)
  if (evmNetworks.has(network)) return `0x${bytes.subarray(0, 20).toString('hex')}`
  if (network === 'Bitcoin') return `bc1q${encode(bytes, bech32, 38)}`
  return encode(bytes, base58, 44)
}

/**
 * ISO 13616: the IBAN with its first four characters moved to the end, letters as numbers
 * (A = 10 … Z = 35), modulo 97. A valid IBAN gives 1.
 */
function ibanMod97(iban: string): bigint {
  const rearranged = `${iban.slice(4)}${iban.slice(0, 4)}`.replace(/[A-Z]/g, (letter) =>
    String(letter.charCodeAt(0) - 55),
  )
  return BigInt(rearranged) % 97n
}

/** A sandbox IBAN for euro deposits by bank transfer (Dutch format, check digits computed). */
export function sandboxIban(accountId: number): string {
  const bban = `POLD${String(accountId).padStart(10, '0')}`
  const check = 98n - ibanMod97(`NL00${bban}`)
  return `NL${String(check).padStart(2, '0')}${bban}`
}

/** IBAN lengths of the SEPA countries (the SWIFT IBAN registry). */
const sepaIbanLengths: Readonly<Record<string, number>> = {
  AD: 24,
  AT: 20,
  BE: 16,
  BG: 22,
  CH: 21,
  CY: 28,
  CZ: 24,
  DE: 22,
  DK: 18,
  EE: 20,
  ES: 24,
  FI: 18,
  FR: 27,
  GB: 22,
  GI: 23,
  GR: 27,
  HR: 21,
  HU: 28,
  IE: 22,
  IS: 26,
  IT: 27,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  MC: 27,
  MT: 31,
  NL: 18,
  NO: 15,
  PL: 28,
  PT: 25,
  RO: 24,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  VA: 22,
}

/**
 * Whether a euro withdrawal's destination is an IBAN of a SEPA country: its country's length,
 * letters and digits only, and check digits that hold. Spaces (as people write IBANs) are
 * allowed; letters must be capitals.
 */
export function isValidIban(text: string): boolean {
  const iban = text.replace(/ /g, '')
  const length = sepaIbanLengths[iban.slice(0, 2)]
  if (length === undefined || iban.length !== length) return false
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(iban)) return false
  return ibanMod97(iban) === 1n
}

/** Whether an address has the shape of its network (ccxt's checkAddress rules for the rest). */
export function isValidAddress(network: string, address: string): boolean {
  if (evmNetworks.has(network)) return /^0x[0-9a-fA-F]{40}$/.test(address)
  if (network === 'Bitcoin')
    return /^(bc1[02-9ac-hj-np-z]{11,71}|[13][1-9A-HJ-NP-Za-km-z]{25,34})$/.test(address)
  return /^[A-Za-z0-9:_.-]{20,128}$/.test(address) && new Set(address).size > 1
}
