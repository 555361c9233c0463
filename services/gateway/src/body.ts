/** Request bodies: read up to the limit, parsed as JSON whatever their declared type, kept as their bytes to forward. */
import type { FastifyInstance } from 'fastify';
import { Limits, TOO_DEEP_MESSAGE, type ErrorCode } from '@clinic/contracts';
import { parseStrictJson, type StrictJsonProblem } from '@clinic/service-kit';
import { GATEWAY_MESSAGES, HttpError } from './errors';

/**
 * An oversized body is still read (and discarded) up to this size, so that the
 * client, which is usually still sending, receives the 413 instead of a reset
 * connection. Beyond it the connection is dropped.
 */
export const DRAIN_LIMIT_BYTES = 32 * 1024 * 1024;

function readLimitedBody(
  payload: NodeJS.ReadableStream & { destroy(): void },
  limit: number,
  callback: (err: HttpError | Error | null, body?: Buffer) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  const finish = (err: HttpError | Error | null, body?: Buffer) => {
    if (finished) return;
    finished = true;
    callback(err, body);
  };
  payload.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > DRAIN_LIMIT_BYTES) {
      payload.destroy();
      finish(new HttpError('BODY_TOO_LARGE'));
    } else if (size <= limit) {
      chunks.push(chunk);
    } else {
      chunks.length = 0;
    }
  });
  payload.on('end', () => finish(size > limit ? new HttpError('BODY_TOO_LARGE') : null, Buffer.concat(chunks)));
  payload.on('error', (err: Error) => finish(err));
}

const UNREADABLE_BODY: Record<StrictJsonProblem, [ErrorCode, string]> = {
  invalid: ['INVALID_JSON', GATEWAY_MESSAGES.invalidJson],
  poisoned: ['BODY_FORBIDDEN_KEYS', GATEWAY_MESSAGES.poisoned],
  'too deep': ['BODY_TOO_DEEP', TOO_DEEP_MESSAGE],
};

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

function withoutBom(body: Buffer): Buffer {
  return body.subarray(0, 3).equals(UTF8_BOM) ? body.subarray(3) : body;
}

/**
 * Bodies are parsed here whatever their declared type, so that anything that
 * is not JSON gets the spec's 400; an empty body reaches the service as
 * "no body". Prototype-poisoning keys are rejected outright.
 */
export function parseJsonBodies(app: FastifyInstance, bodyLimitBytes: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request, payload, done) => {
    readLimitedBody(payload, bodyLimitBytes, (err, body) => {
      if (err) return done(err, undefined);
      if (!body || body.length === 0) return done(null, undefined);
      const parsed = parseStrictJson(body, Limits.jsonDepthMax);
      if (!parsed.ok) return done(new HttpError(...UNREADABLE_BODY[parsed.problem]), undefined);
      // Forwarded as it came: re-encoded, a body can grow (1e20 is written 100000000000000000000).
      request.rawBody = withoutBom(body);
      done(null, parsed.value);
    });
  });
}
