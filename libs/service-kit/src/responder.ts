import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Match, headers as natsHeaders, type Msg, type MsgHdrs, type NatsConnection, type Subscription } from 'nats';
import sjson from 'secure-json-parse';
import {
  accessOf,
  AUTH_MESSAGES,
  BAD_IDEMPOTENCY_KEY_MESSAGE,
  decideAccess,
  failure,
  GENERIC_ERROR_MESSAGE,
  HeaderNames,
  IDEMPOTENCY_KEY_PATTERN,
  Limits,
  nestsDeeperThan,
  REPLY_TOO_LARGE_MESSAGE,
  TOO_DEEP_MESSAGE,
  type Caller,
  type ServiceReply,
  type ServiceRequest,
} from '@clinic/contracts';
import { ServiceError } from './errors';
import type { Logger } from './logger';
import { compileSchema } from './schema';
import { TokenRefused, type TokenVerifier } from './tokens';
import { requestAnswered, traceLogFields, withHandlerSpan } from './responder-telemetry';

export interface HandlerContext {
  /** The caller its token proves, on subjects that need one. */
  caller: Caller | null;
  /** That token, to forward with requests made on the caller's behalf. */
  token: string | null;
  correlationId: string;
  idempotencyKey: string | null;
  log: Logger;
}

/**
 * A reply serialized once and sent as it is to every caller: for cached reads,
 * where serializing a large body per request cost more than finding it.
 */
export class EncodedReply {
  readonly status: number;
  readonly encoded: Uint8Array;

  constructor(reply: ServiceReply) {
    this.status = reply.status;
    this.encoded = new TextEncoder().encode(JSON.stringify(reply));
  }
}

export type Handler = (request: ServiceRequest, ctx: HandlerContext) => Promise<ServiceReply | EncodedReply>;

export interface ServeOptions {
  nc: NatsConnection;
  service: string;
  handlers: Record<string, Handler>;
  log: Logger;
  /** Checks the token each request carries (the same policy as the gateway's). */
  verifyToken: TokenVerifier;
  /** Fails requests fast while the database is down (health and status subjects are not guarded). */
  breaker?: { run<T>(work: () => Promise<T>): Promise<T> };
  unguarded?: string[];
  /** NATS messages a reply may take at most. */
  replyChunksMax?: number;
}

export interface Server {
  /** Stops taking requests and waits for the ones in progress to be answered. */
  stop(): Promise<void>;
}

const requestEnvelopeSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    params: { type: 'object', additionalProperties: { type: 'string', maxLength: 100 } },
    query: {
      type: 'object',
      additionalProperties: {
        anyOf: [{ type: 'string' }, { type: 'array', maxItems: 20, items: { type: 'string' } }],
      },
    },
    body: {},
  },
};

const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/** Room left in each message for its headers. */
const HEADER_ROOM_BYTES = 4096;

/**
 * Sends a reply, in as many messages as the server's max_payload requires
 * (at most `maxChunks`), and returns how many it took; 0 when the reply is too
 * large, in which case the caller gets a 413 in the envelope instead.
 */
function respond(msg: Msg, encoded: Uint8Array, correlationId: string, maxChunks: number, maxPayload = 1024 * 1024): number {
  const chunkSize = Math.max(1024, maxPayload - HEADER_ROOM_BYTES);
  const count = Math.ceil(encoded.length / chunkSize) || 1;
  if (count > maxChunks) {
    const h = natsHeaders();
    h.set(HeaderNames.correlationId, correlationId);
    msg.respond(new TextEncoder().encode(JSON.stringify(failure(413, REPLY_TOO_LARGE_MESSAGE))), { headers: h });
    return 0;
  }
  for (let i = 0; i < count; i++) {
    const h = natsHeaders();
    h.set(HeaderNames.correlationId, correlationId);
    if (count > 1) {
      h.set(HeaderNames.chunkCount, String(count));
      h.set(HeaderNames.chunkIndex, String(i));
    }
    msg.respond(encoded.subarray(i * chunkSize, (i + 1) * chunkSize), { headers: h });
  }
  return count;
}

export function readCorrelationId(value: string | undefined): string | undefined {
  return value && CORRELATION_ID.test(value) ? value : undefined;
}

/** The request's `Idempotency-Key`, bounded as the gateway bounds it. */
export function readIdempotencyKey(h: MsgHdrs | undefined): string | null {
  const key = h?.get(HeaderNames.idempotencyKey);
  if (!key) return null;
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) throw new ServiceError(400, BAD_IDEMPOTENCY_KEY_MESSAGE);
  return key;
}

/**
 * Whether a message is a JetStream delivery rather than a request: pushed or
 * pulled stream messages keep their stream subject and carry an acknowledgement
 * subject as their reply. A consumer pointed at a service's subject (by its deliver
 * subject, or a pull request's reply subject) must never have its messages run.
 */
export function isStreamDelivery(msg: Msg, subject: string): boolean {
  return msg.subject !== subject || Boolean(msg.reply?.startsWith('$JS.'));
}

function decodeRequest(data: Uint8Array): ServiceRequest {
  let parsed: unknown;
  try {
    parsed = sjson.parse(Buffer.from(data), undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (err) {
    const poisoned = err instanceof SyntaxError && /forbidden/i.test(err.message);
    throw new ServiceError(400, poisoned ? 'Request must not contain __proto__ or constructor.prototype keys.' : 'Request is not valid JSON.');
  }
  if (nestsDeeperThan(parsed, Limits.jsonDepthMax + 1)) throw new ServiceError(400, TOO_DEEP_MESSAGE);
  if (!compileSchema(requestEnvelopeSchema)(parsed)) {
    throw new ServiceError(400, 'Request does not follow the service envelope {params, query, body}.');
  }
  return parsed as ServiceRequest;
}

/**
 * The NATS side of a service: one queue-group subscription per subject, the
 * caller and correlation id read from headers, access checked, errors turned
 * into the spec's envelope, one log line per request.
 */
export function serve({ nc, service, handlers, log, verifyToken, breaker, unguarded = [], replyChunksMax = Limits.replyChunksMax }: ServeOptions): Server {
  const inFlight = new Set<Promise<void>>();
  const subscriptions: Subscription[] = [];
  const encoder = new TextEncoder();

  async function handle(subject: string, handler: Handler, msg: Msg): Promise<void> {
    const started = performance.now();
    const correlationId = readCorrelationId(msg.headers?.get(HeaderNames.correlationId)) ?? randomUUID();
    const requestLog = log.child({ correlation_id: correlationId, subject, ...traceLogFields() });
    const deadline = Number(msg.headers?.get(HeaderNames.deadline) || 0);
    if (deadline > 0 && Date.now() > deadline) {
      requestLog.warn('request expired while queued; not processed');
      return;
    }
    let caller: Caller | null = null;
    let token: string | null = null;
    let reply: ServiceReply | EncodedReply;
    let cause: unknown;
    try {
      const access = accessOf(subject);
      if (access.kind !== 'public') {
        try {
          ({ caller, token } = verifyToken(msg.headers?.get(HeaderNames.authorization, Match.IgnoreCase)));
        } catch (err) {
          if (err instanceof TokenRefused) throw new ServiceError(401, err.message);
          throw err;
        }
        if (decideAccess(access, caller) === 'forbidden') throw new ServiceError(403, AUTH_MESSAGES.forbidden);
      }
      const request = decodeRequest(msg.data);
      const idempotencyKey = readIdempotencyKey(msg.headers);
      const run = () => handler(request, { caller, token, correlationId, idempotencyKey, log: requestLog });
      reply = breaker && !unguarded.includes(subject) ? await breaker.run(run) : await run();
    } catch (err) {
      if (err instanceof ServiceError) {
        reply = failure(err.status, err.message);
      } else {
        cause = err;
        reply = failure(500, GENERIC_ERROR_MESSAGE);
      }
    }
    if (msg.reply) {
      const encoded = reply instanceof EncodedReply ? reply.encoded : encoder.encode(JSON.stringify(reply));
      const chunks = respond(msg, encoded, correlationId, replyChunksMax, nc.info?.max_payload);
      if (chunks === 0) reply = failure(413, REPLY_TOO_LARGE_MESSAGE);
    }
    const durationMs = performance.now() - started;
    requestAnswered(subject, reply.status, durationMs);
    const line = {
      status: reply.status,
      duration_ms: Math.round(durationMs * 100) / 100,
      caller_sub: caller?.sub,
      caller_role: caller?.role,
      ...(cause ? { err: cause } : {}),
    };
    if (cause) requestLog.error(line, 'request failed');
    else requestLog.info(line, 'request handled');
  }

  for (const [subject, handler] of Object.entries(handlers)) {
    const sub = nc.subscribe(subject, {
      queue: service,
      callback: (err, msg) => {
        if (err) {
          log.error({ err, subject }, 'subscription error');
          return;
        }
        if (!msg.reply) {
          log.warn({ subject }, 'message without a reply subject ignored: use request-reply');
          return;
        }
        if (isStreamDelivery(msg, subject)) {
          log.warn({ subject, delivered_subject: msg.subject, reply: msg.reply.slice(0, 200) }, 'JetStream delivery ignored: only requests are answered');
          return;
        }
        const work = withHandlerSpan(subject, msg.headers, () => handle(subject, handler, msg)).catch((e: unknown) => log.error({ err: e, subject }, 'request handling crashed'));
        inFlight.add(work);
        void work.finally(() => inFlight.delete(work));
      },
    });
    subscriptions.push(sub);
  }
  log.info({ subjects: Object.keys(handlers), queue: service }, 'serving');

  return {
    async stop() {
      await Promise.allSettled(subscriptions.map((s) => s.drain()));
      await Promise.allSettled([...inFlight]);
    },
  };
}
