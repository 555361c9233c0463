/** Requests refused before routing, by Node's HTTP parser or by Fastify: still the envelope and one log line. */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { HeaderNames } from '@clinic/contracts';
import type { Logger } from '@clinic/service-kit';
import { GATEWAY_MESSAGES, HttpError, sendFailure } from './errors';

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers over
 * its 16 KiB limit, a malformed request, a timeout) still get the envelope,
 * written straight to the socket, and one log line.
 */
export function clientErrorHandler(log: Logger) {
  // The parser keeps failing on what the client is still sending: the first refusal is the answer.
  const answered = new WeakSet<Duplex>();
  return (err: Error & { code?: string }, socket: Duplex): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
    answered.add(socket);
    const {
      statusCode: status,
      code,
      message: error,
    } = new HttpError(
      err.code === 'HPE_HEADER_OVERFLOW'
        ? 'HEADERS_TOO_LARGE'
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'REQUEST_TIMEOUT'
          : 'MALFORMED_REQUEST',
      err.code === 'HPE_HEADER_OVERFLOW' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? undefined
        : GATEWAY_MESSAGES.badRequest,
    );
    const correlationId = randomUUID();
    const body = JSON.stringify({ success: false, error, code });
    log.info(
      { correlation_id: correlationId, status, cause: err.code ?? err.message },
      'request refused by the HTTP parser',
    );
    socket.end(
      [
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
        'content-type: application/json; charset=utf-8',
        `content-length: ${Buffer.byteLength(body)}`,
        `${HeaderNames.correlationId}: ${correlationId}`,
        'connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  };
}

/** Fastify's own refusals before routing: a path parameter over maxParamLength (414), a malformed path (400). */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const [code, message] =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? (['PATH_TOO_LONG', GATEWAY_MESSAGES.pathTooLong] as const)
      : (['MALFORMED_REQUEST', GATEWAY_MESSAGES.badPath] as const);
  const status = new HttpError(code).statusCode;
  request.log.info(
    { method: request.method, url: request.url.slice(0, 300), status, cause: error.code },
    'request completed',
  );
  reply.header(HeaderNames.correlationId, request.id);
  sendFailure(reply, code, message);
}
