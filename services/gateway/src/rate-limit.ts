/**
 * Rate limits (@fastify/rate-limit): per caller (the token's `sub`) on routes
 * with a token, per IP address on the others (health, docs), and a separate,
 * stricter limit for writes (POST, PUT, DELETE). Counted in this gateway's
 * memory: with several gateway replicas each one counts on its own (docs/operations.md).
 *
 * The limiter runs after the token check (route onRequest hooks come first)
 * and before the body is read, so a request refused for its token (401/403)
 * is not counted, and one over the limit costs no body parsing.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyRateLimit from '@fastify/rate-limit';
import { GATEWAY_MESSAGES, HttpError } from './errors';
import type { RateLimitConfig } from './config';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Registers the limiter for every route defined after it; nothing when rate limiting is off. */
export async function registerRateLimits(app: FastifyInstance, config: RateLimitConfig): Promise<void> {
  if (config.max <= 0) return;
  const isWrite = (request: FastifyRequest) => WRITE_METHODS.has(request.method);
  await app.register(fastifyRateLimit, {
    hook: 'preParsing',
    timeWindow: config.windowMs,
    enableDraftSpec: true,
    keyGenerator: (request) => {
      const who = request.caller ? `sub:${JSON.stringify(request.caller.sub)}` : `ip:${request.ip}`;
      return `${isWrite(request) ? 'write' : 'read'}:${who}`;
    },
    max: (request) => {
      if (isWrite(request)) return config.writeMax;
      return request.caller ? config.max : config.ipMax;
    },
    errorResponseBuilder: (_request, context) =>
      new HttpError('RATE_LIMITED', GATEWAY_MESSAGES.rateLimited(context.after)),
  });
}
