// Order ids: UUIDv7 (RFC 9562) of the order's own timestamp, from one generator for the whole
// process, so that ids rise in the order orders are placed, within a millisecond too. An
// account's orders are listed by creation time and then id (orderHistory.ts `OrderKey`), and the
// order archive's indexes then grow at their ends rather than at random places.
import { V7Generator } from 'uuidv7'

const generator = new V7Generator()

/**
 * A new order id for an order placed at `timestampMs`. A clock stepping back up to 10 s keeps
 * the previous id's millisecond (ids go on rising); further, ids start again from the new time.
 */
export function newOrderId(timestampMs: number): string {
  return generator.generateOrResetWithTs(timestampMs).toString()
}
