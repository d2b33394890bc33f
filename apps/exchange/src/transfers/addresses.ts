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

/** A sandbox IBAN for euro deposits by bank transfer (Dutch format, check digits computed). */
export function sandboxIban(accountId: number): string {
  const bank = 'POLD'
  const number = String(accountId).padStart(10, '0')
  // ISO 13616 check digits: move 'NL00' to the end, letters to numbers, 98 − mod 97.
  const rearranged = `${bank}${number}NL00`.replace(/[A-Z]/g, (letter) =>
    String(letter.charCodeAt(0) - 55),
  )
  const check = 98n - (BigInt(rearranged) % 97n)
  return `NL${String(check).padStart(2, '0')}${bank}${number}`
}

/** Whether an address has the shape of its network (ccxt's checkAddress rules for the rest). */
export function isValidAddress(network: string, address: string): boolean {
  if (evmNetworks.has(network)) return /^0x[0-9a-fA-F]{40}$/.test(address)
  if (network === 'Bitcoin')
    return /^(bc1[02-9ac-hj-np-z]{11,71}|[13][1-9A-HJ-NP-Za-km-z]{25,34})$/.test(address)
  return /^[A-Za-z0-9:_.-]{20,128}$/.test(address) && new Set(address).size > 1
}
