/**
 * The request/reply envelope carried over NATS. The gateway translates HTTP into
 * a ServiceRequest and a ServiceReply back into HTTP; other hospital services
 * speak it directly.
 */

/** `sub` is kept exactly as the token gives it: an integer or a string. */
export interface Caller {
  sub: number | string;
  role: string;
  /** The branches the token is limited to (its `store_ids` claim); absent: every branch, as before the claim. */
  store_ids?: readonly number[];
}

export interface ServiceRequest<TBody = unknown> {
  params?: Record<string, string>;
  query?: Record<string, string | string[]>;
  body?: TBody;
}

export interface SuccessBody {
  success: true;
  [field: string]: unknown;
}

export interface FailureBody {
  success: false;
  error: string;
}

export type ResponseBody = SuccessBody | FailureBody;

export interface ServiceReply<TBody extends ResponseBody = ResponseBody> {
  status: number;
  body: TBody;
}

export const HeaderNames = {
  correlationId: 'x-correlation-id',
  /**
   * `Bearer <JWT>`: the caller's own token, which the service verifies itself
   * (the gateway forwards the one it received; another hospital system sends its own).
   */
  authorization: 'authorization',
  /** Epoch milliseconds after which the requester no longer waits for the reply. */
  deadline: 'x-deadline',
  /** Client-chosen key that makes a create safe to retry. */
  idempotencyKey: 'idempotency-key',
  /**
   * On a reply larger than one NATS message: how many messages it comes in, and
   * which one this is (0-based). The caller joins them in order.
   */
  chunkCount: 'x-chunk-count',
  chunkIndex: 'x-chunk',
} as const;

export const GENERIC_ERROR_MESSAGE = 'Internal server error.';

export function success(status: number, fields: Record<string, unknown> = {}): ServiceReply<SuccessBody> {
  return { status, body: { success: true, ...fields } };
}

export function failure(status: number, error: string): ServiceReply<FailureBody> {
  return { status, body: { success: false, error } };
}
