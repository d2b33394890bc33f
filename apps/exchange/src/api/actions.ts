// The server's actions, one handler each, shared by REST and WebSocket so that the same action
// answers the same way on both (protocol §6.2: a WS response payload equals the REST body).
import {
  type ErrorBody,
  type ProtocolErrorReply,
  protocolError,
  type RestEndpoint,
  type RestOnlyAction,
  restEndpoints,
  type WsAction,
} from '@polder/protocol'
import type { Permission } from '../accounts/accountStore.ts'
import { permissionErrorCodes } from '../auth/signature.ts'

/** Who is calling: an authenticated account with its key's permissions, or nobody. */
export type Caller = { accountId: number; permissions: readonly Permission[] } | undefined

export type ActionResult =
  | { ok: true; response: unknown }
  | { ok: false; status: number; body: ErrorBody }

export type ActionHandler = (
  params: Record<string, unknown>,
  caller: Caller,
) => ActionResult | Promise<ActionResult>

export function success(response: unknown): ActionResult {
  return { ok: true, response }
}

export function failure(reply: ProtocolErrorReply): ActionResult {
  return { ok: false, ...reply }
}

/** The action a REST endpoint runs: its WebSocket action, or one of its own. */
export function actionOfEndpoint(endpoint: RestEndpoint): string | undefined {
  return endpoint.wsAction ?? endpoint.restOnlyAction
}

/** The REST endpoint of each action: its permission and rate-limit weight. */
export const endpointOfAction: ReadonlyMap<string, RestEndpoint> = new Map(
  Object.values(restEndpoints as Record<string, RestEndpoint>).flatMap((endpoint) => {
    const action = actionOfEndpoint(endpoint)
    return action === undefined ? [] : [[action, endpoint] as const]
  }),
)

export class ActionRegistry {
  readonly #handlers = new Map<string, ActionHandler>()

  register(action: WsAction | RestOnlyAction, handler: ActionHandler): this {
    if (this.#handlers.has(action)) throw new Error(`action ${action} is registered twice`)
    this.#handlers.set(action, handler)
    return this
  }

  has(action: string): boolean {
    return this.#handlers.has(action)
  }

  /**
   * Runs an action whose parameters passed their schema. A private action needs a caller
   * (300) whose key has the endpoint's permission (310/311/312).
   */
  async run(
    action: string,
    params: Record<string, unknown>,
    caller: Caller,
  ): Promise<ActionResult> {
    const handler = this.#handlers.get(action)
    if (handler === undefined) return failure(protocolError(110))
    const endpoint = endpointOfAction.get(action)
    if (endpoint?.auth === 'private') {
      if (caller === undefined) return failure(protocolError(300))
      const permission = endpoint.permission
      if (permission !== 'none' && !caller.permissions.includes(permission)) {
        return failure(protocolError(permissionErrorCodes[permission]))
      }
    }
    return handler(params, caller)
  }
}
