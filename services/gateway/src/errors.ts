/** The gateway's own failures: an HTTP status and the message of the spec's envelope `{success: false, error}`. */
import type { FastifyReply } from 'fastify';
import { BAD_IDEMPOTENCY_KEY_MESSAGE } from '@clinic/contracts';

export const GATEWAY_MESSAGES = {
  notFound: 'Route not found.',
  methodNotAllowed: 'Method not allowed for this route.',
  invalidJson: 'Request body must be valid JSON.',
  poisoned: 'Request body must not contain __proto__ or constructor.prototype keys.',
  tooLarge: 'Request body is too large.',
  unavailable: 'Service unavailable. Please retry.',
  timeout: 'The service did not answer in time. Please retry.',
  badIdempotencyKey: BAD_IDEMPOTENCY_KEY_MESSAGE,
  pathTooLong: 'Request path is too long.',
  badPath: 'Request path is malformed.',
  headersTooLarge: 'Request headers are too large.',
  badRequest: 'Malformed HTTP request.',
  hostRequired: 'A Host header is required (HTTP/1.1).',
  requestTimeout: 'Request timed out.',
} as const;

/** A request the gateway answers itself: the status, and the envelope's `error`. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** The spec's failure envelope with its status. */
export function sendFailure(reply: FastifyReply, status: number, error: string): FastifyReply {
  return reply.code(status).send({ success: false, error });
}
