/** The gateway's own failures: the spec's envelope `{success: false, error, code}` with the code's status. */
import type { FastifyReply } from 'fastify';
import { ERROR_CODES, fixedMessageOf, GATEWAY_MESSAGES, type ErrorCode } from '@clinic/contracts';

export { GATEWAY_MESSAGES };

/** A request the gateway answers itself: its code (libs/contracts error-codes.ts), its status and its text. */
export class HttpError extends Error {
  readonly statusCode: number;

  constructor(
    readonly code: ErrorCode,
    message = fixedMessageOf(code) ?? code,
  ) {
    super(message);
    this.statusCode = ERROR_CODES[code].status[0]!;
  }
}

/**
 * The spec's failure envelope with the code's status (or `status`, where Fastify gave another 4xx); the code's one
 * fixed text unless `error` is given.
 */
export function sendFailure(reply: FastifyReply, code: ErrorCode, error?: string, status?: number): FastifyReply {
  const failure = new HttpError(code, error);
  return reply.code(status ?? failure.statusCode).send({ success: false, error: failure.message, code });
}
