// Ids made from a name rather than drawn at random: the same name gives the same id, in every
// process and on every replay. A UUID's shape (version 4 and variant bits set, as clients that
// check the shape expect) over 120 bits of the name's SHA-256.
import { createHash } from 'node:crypto'

export function namedId(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}
