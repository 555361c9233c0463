/**
 * A question a service asks another on its caller's behalf, with the
 * caller's token (so that the other service applies the caller's role and
 * branches too): no answer in time is the caller's `unavailable` refusal
 * (503: nothing was done, retry), and a refusal of the token reaches the
 * caller as the other service gave it.
 */
import type { NatsConnection } from 'nats';
import type { FailureBody, ServiceReply } from '@clinic/contracts';
import { ServiceError } from '../domain/errors';
import { callService, ServiceTimeoutError, ServiceUnavailableError } from './nats-client';
import type { HandlerContext } from './responder';

const TIMEOUT_MS = 3_000;

export async function askAsCaller(
  nc: NatsConnection,
  subject: string,
  request: Record<string, unknown>,
  ctx: HandlerContext,
  unavailable: () => ServiceError,
): Promise<ServiceReply> {
  try {
    return await callService(nc, subject, request, {
      token: ctx.token,
      correlationId: ctx.correlationId,
      timeoutMs: TIMEOUT_MS,
    });
  } catch (err) {
    if (err instanceof ServiceUnavailableError || err instanceof ServiceTimeoutError) {
      ctx.log.warn({ err: err.message, subject }, 'service unavailable');
      throw unavailable();
    }
    throw err;
  }
}

/** The other service's refusal, as it gave it. */
export const refusalOf = (status: number, body: FailureBody) =>
  new ServiceError(status, body.error, body.code, body.field);
