/**
 * A route's request forwarded to its service over NATS, and its reply sent
 * as it came; a hot read answered from the reply cache when it holds it.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NatsConnection } from 'nats';
import { HeaderNames, IDEMPOTENCY_KEY_PATTERN, serviceOf, type HttpRoute } from '@clinic/contracts';
import {
  callServiceReply,
  ifNoneMatchHolds,
  splitReply,
  type SplitReply,
  ServiceTimeoutError,
  ServiceUnavailableError,
} from '@clinic/service-kit';
import { sendBinary } from './binary';
import type { GatewayConfig } from './config';
import { requestEnvelope } from './envelope';
import { GATEWAY_MESSAGES, HttpError, sendFailure } from './errors';
import { sendExport } from './export';
import type { ReplyCache } from './reply-cache';

export interface ForwardDeps {
  config: GatewayConfig;
  nc: NatsConnection;
  replies: ReplyCache | null;
}

/** A request header given once (Node joins a repeated If-Match with commas, as the header's list syntax allows). */
function singleHeader(request: FastifyRequest, name: 'if-match' | 'if-none-match'): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers[HeaderNames.idempotencyKey];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(raw)) throw new HttpError('IDEMPOTENCY_KEY_INVALID');
  return raw;
}

/** An export's file, written from the service's pages (export.ts). */
export async function exportFile(
  route: HttpRoute,
  request: FastifyRequest,
  reply: FastifyReply,
  deps: ForwardDeps,
): Promise<FastifyReply> {
  try {
    return await sendExport(route, request, reply, deps);
  } catch (err) {
    return unanswered(route, request, reply, deps.config, err);
  }
}

/**
 * A read the reply cache may answer: a GET with nothing forwarded beyond the path, the query and the
 * caller's verified token (the cache key), so that no other header can change the answer.
 */
function cacheKeyOf(request: FastifyRequest, idempotencyKey?: string, ifMatch?: string): string | null {
  if (request.method !== 'GET' || idempotencyKey !== undefined || ifMatch !== undefined) return null;
  return `${request.url}\u0000${request.token ?? ''}`;
}

export async function forward(
  route: HttpRoute,
  request: FastifyRequest,
  reply: FastifyReply,
  { config, nc, replies }: ForwardDeps,
): Promise<FastifyReply> {
  // Each header only where the operation takes it (its documented failures say so); elsewhere it is ignored.
  const idempotencyKey = route.idempotent ? idempotencyKeyOf(request) : undefined;
  const ifMatch = route.conditional === 'write' ? singleHeader(request, 'if-match') : undefined;
  const service = serviceOf(route.subject);
  const key = replies && service ? cacheKeyOf(request, idempotencyKey, ifMatch) : null;
  const hit = replies && service && key !== null ? await replies.lookup(service, key) : null;
  if (hit) {
    request.outcome = { cache: 'hit' };
    return sendReply(route, request, reply, hit);
  }
  const envelope = requestEnvelope(
    route,
    request.params as Record<string, string>,
    request.query as Record<string, string | string[]>,
    request.rawBody,
  );
  if (envelope.length > (nc.info?.max_payload ?? Infinity)) return sendFailure(reply, 'BODY_TOO_LARGE');

  try {
    const answer = await callServiceReply(nc, route.subject, envelope, {
      token: request.token,
      correlationId: request.id,
      timeoutMs: config.requestTimeoutMs,
      idempotencyKey,
      ifMatch,
      traceContext: request.httpSpan?.context,
    });
    const split = splitReply(answer.data);
    if (service && key !== null) replies?.keep(service, key, answer, split);
    return sendReply(route, request, reply, split);
  } catch (err) {
    return unanswered(route, request, reply, config, err);
  }
}

/** The service's body goes out as it came: no parse and no second serialization. */
function sendReply(
  route: HttpRoute,
  request: FastifyRequest,
  reply: FastifyReply,
  { status, etag, body }: SplitReply,
): FastifyReply {
  if (etag !== undefined) {
    reply.header('etag', etag);
    const ifNoneMatch = singleHeader(request, 'if-none-match');
    if (ifNoneMatch !== undefined && status === 200 && ifNoneMatchHolds(ifNoneMatch, etag))
      return reply.code(304).send();
  }
  const binary = route.produces && status === 200 ? sendBinary(reply.code(status), route.produces, body) : null;
  if (binary) return binary;
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
}

/** 503 when no instance of the service answers, 504 when it answers too late; anything else is a 500. */
function unanswered(
  route: HttpRoute,
  request: FastifyRequest,
  reply: FastifyReply,
  config: GatewayConfig,
  err: unknown,
): FastifyReply {
  if (err instanceof ServiceUnavailableError) {
    request.outcome = { subject: route.subject, cause: 'no responder' };
    return sendFailure(reply, 'SERVICE_UNAVAILABLE', GATEWAY_MESSAGES.unavailable);
  }
  if (err instanceof ServiceTimeoutError) {
    request.outcome = { subject: route.subject, cause: `no reply within ${config.requestTimeoutMs} ms` };
    return sendFailure(reply, 'SERVICE_TIMEOUT');
  }
  throw err;
}
