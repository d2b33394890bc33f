// Spec §8: the client's message keys for authentication failures. These keys name entries of
// the client's message catalogues, they are not wire text.

export const authMessageKeys = [
  'hermes_auth_invalid_session',
  'hermes_auth_unknown',
  'hermes_unauthenticated',
] as const
export type AuthMessageKey = (typeof authMessageKeys)[number]

/** Code 313 is the protocol's "invalid session". */
export const invalidSessionErrorCode = 313
/**
 * The code a client records when it receives an `unauthenticate` event (spec §8). Not to be
 * confused with the protocol's errorCode 401 (deposits unavailable): this mapping only applies
 * to failures of `authenticate` and to `unauthenticate` events.
 */
export const unauthenticatedErrorCode = 401

/**
 * Spec §8: codes 313 and 401 both map to `hermes_auth_invalid_session`; any other failure shows
 * the server's message, or `hermes_auth_unknown` when there is none.
 */
export function authErrorMessageKey(
  code: number | undefined,
  serverMessage?: string,
): AuthMessageKey | string {
  if (code === invalidSessionErrorCode || code === unauthenticatedErrorCode) {
    return 'hermes_auth_invalid_session'
  }
  if (serverMessage !== undefined && serverMessage.trim() !== '') return serverMessage
  return 'hermes_auth_unknown'
}
