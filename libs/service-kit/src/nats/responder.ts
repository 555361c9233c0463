import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Match, type Msg, type NatsConnection } from 'nats';
import {
  accessOf,
  decideAccess,
  failure,
  GENERIC_ERROR_MESSAGE,
  HeaderNames,
  isUserInbox,
  Limits,
  REPLY_TOO_LARGE_MESSAGE,
  SPEC_ACCESS,
  tokenRefusalCode,
  type AccessSettings,
  type Caller,
  type ServiceReply,
  type ServiceRequest,
} from '@clinic/contracts';
import { fail, ServiceError } from '../domain/errors';
import type { Logger } from '../process/logger';
import { countUnanswered, type UnansweredReason } from '../process/metrics';
import { OncePerMinute } from '../process/once-per-minute';
import { EncodedReply, respondInChunks } from './reply-chunks';
import {
  decodeRequest,
  isStreamDelivery,
  readCorrelationId,
  readIdempotencyKey,
  readIfMatch,
} from './request-envelope';
import { requestAnswered, traceLogFields, withHandlerSpan } from './responder-telemetry';
import { TokenRefused } from '../auth/token-claims';
import type { TokenVerifier } from '../auth/token-verifier';

export { EncodedReply };

export interface HandlerContext {
  /** The caller its token proves, on subjects that need one. */
  caller: Caller | null;
  /** That token, to forward with requests made on the caller's behalf. */
  token: string | null;
  correlationId: string;
  idempotencyKey: string | null;
  /** The If-Match header: the ETag(s) an update or a delete requires the record to still have (conditional.ts). */
  ifMatch: string | null;
  log: Logger;
  /**
   * Marks a 200 as one the gateway may keep until one of these scopes has a new version (`scope=version`; null: a
   * read not proved current): a hot read whose answer depends on nothing else but the request and the caller's token.
   */
  share(stamps: string[] | null): void;
  /** When the caller stops waiting (epoch ms, its `x-deadline`); absent when it named none. */
  deadline?: number;
}

export type Handler = (request: ServiceRequest, ctx: HandlerContext) => Promise<ServiceReply | EncodedReply>;

export interface ResponderOptions {
  nc: NatsConnection;
  /** The service's name: its NATS Services API name and its queue group. */
  service: string;
  /** Semantic version reported by discovery. */
  version: string;
  /** Reported by discovery ($SRV.INFO, PING, STATS) with the instance's id. */
  metadata?: Record<string, string>;
  handlers: Record<string, Handler>;
  log: Logger;
  /** Checks the token each request carries (the same policy as the gateway's). */
  verifyToken: TokenVerifier;
  /** BRANCH_SCOPE and SESSION_WRITE_ROLES, as the gateway applies them; the spec's access by default. */
  access?: AccessSettings;
  /** Fails requests fast while the database is down (health and status subjects are not guarded). */
  breaker?: { run<T>(work: () => Promise<T>): Promise<T> };
  unguarded?: string[];
  /** NATS messages a reply may take at most. */
  replyChunksMax?: number;
}

export interface Responder {
  /** Stops taking requests and waits for the ones in progress to be answered. */
  stop(): Promise<void>;
}

/**
 * What an endpoint's $SRV.STATS entry carries as `data`. nats.js times only the
 * synchronous start of a callback endpoint, so its own processing_time is
 * close to 0 for these asynchronous handlers: these are the real figures.
 */
class EndpointFigures {
  private answered = 0;
  private failed = 0;
  private totalMs = 0;

  record(status: number, durationMs: number): void {
    this.answered++;
    if (status >= 500) this.failed++;
    this.totalMs += durationMs;
  }

  snapshot() {
    const average = this.answered > 0 ? this.totalMs / this.answered : 0;
    return { answered: this.answered, answered_5xx: this.failed, average_ms: Math.round(average * 100) / 100 };
  }
}

/** An endpoint's name in the Services API: its subject without the service's prefix, `.` as `-` (bill-create). */
const endpointName = (service: string, subject: string) =>
  subject.slice(subject.startsWith(`${service}.`) ? service.length + 1 : 0).replaceAll('.', '-');

/**
 * The NATS side of a service, on the NATS Services API (`nc.services`): one
 * endpoint per subject in the queue group named after the service, so replicas
 * share the load, and discovery ($SRV.PING, INFO, STATS) for ops. The caller
 * and correlation id are read from headers, access checked, errors turned into
 * the spec's envelope, one log line per request.
 */
export async function startResponder(options: ResponderOptions): Promise<Responder> {
  const {
    nc,
    service,
    handlers,
    log,
    verifyToken,
    access: accessSettings = SPEC_ACCESS,
    breaker,
    unguarded = [],
    replyChunksMax = Limits.replyChunksMax,
  } = options;
  const inFlight = new Set<Promise<void>>();
  const dropWarnings = new OncePerMinute(log);
  const figures = new Map(Object.keys(handlers).map((subject) => [subject, new EndpointFigures()]));
  const encoder = new TextEncoder();
  let stopping = false;

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
    const shared: { stamps?: string[]; unproved?: boolean } = {};
    try {
      const access = accessOf(subject, accessSettings);
      if (access.kind !== 'public') {
        try {
          ({ caller, token } = await verifyToken(msg.headers?.get(HeaderNames.authorization, Match.IgnoreCase)));
        } catch (err) {
          if (err instanceof TokenRefused) throw new ServiceError(401, err.message, tokenRefusalCode(err.message));
          throw err;
        }
        const decision = decideAccess(access, caller, accessSettings);
        if (decision === 'forbidden') throw fail('FORBIDDEN');
        if (decision === 'unscoped') throw fail('BRANCH_REQUIRED');
      }
      const request = decodeRequest(msg.data);
      const idempotencyKey = readIdempotencyKey(msg.headers);
      const ifMatch = readIfMatch(msg.headers);
      // A reply that read several kept values depends on all their versions, and is kept only if each was proved.
      const share = (stamps: string[] | null) => {
        if (stamps === null) shared.unproved = true;
        else shared.stamps = [...(shared.stamps ?? []), ...stamps];
      };
      const context: HandlerContext = {
        caller,
        token,
        correlationId,
        idempotencyKey,
        ifMatch,
        log: requestLog,
        share,
        ...(deadline > 0 ? { deadline } : {}),
      };
      const run = () => handler(request, context);
      reply = breaker && !unguarded.includes(subject) ? await breaker.run(run) : await run();
    } catch (err) {
      if (err instanceof ServiceError) {
        reply = failure(err.status, err.message, err.code, err.field, err.approval);
      } else {
        cause = err;
        reply = failure(500, GENERIC_ERROR_MESSAGE, 'INTERNAL_ERROR');
      }
    }
    if (msg.reply) {
      const encoded = reply instanceof EncodedReply ? reply.encoded : encoder.encode(JSON.stringify(reply));
      const cache =
        shared.stamps && !shared.unproved && reply.status === 200
          ? { [HeaderNames.cacheScopes]: shared.stamps.join(',') }
          : undefined;
      const chunks = respondInChunks(msg, encoded, correlationId, replyChunksMax, nc.info?.max_payload, cache);
      if (chunks === 0) reply = failure(413, REPLY_TOO_LARGE_MESSAGE, 'REPLY_TOO_LARGE');
    }
    const durationMs = performance.now() - started;
    requestAnswered(subject, reply.status, durationMs);
    figures.get(subject)?.record(reply.status, durationMs);
    const line = {
      status: reply.status,
      duration_ms: Math.round(durationMs * 100) / 100,
      caller_sub: caller?.sub,
      caller_role: caller?.role,
      caller_store_ids: caller?.store_ids,
      ...(cause ? { err: cause } : {}),
    };
    if (cause) requestLog.error(line, 'request failed');
    else requestLog.info(line, 'request handled');
  }

  /** Why a message is not answered (counted, and logged once a minute at most per subject and reason), or null. */
  function unanswerable(subject: string, msg: Msg): [UnansweredReason, object, string] | null {
    if (!msg.reply) return ['no_reply', {}, 'message without a reply subject ignored: use request-reply'];
    if (isStreamDelivery(msg, subject))
      return [
        'stream_delivery',
        { delivered_subject: msg.subject, reply: msg.reply.slice(0, 200) },
        'JetStream delivery ignored: only requests are answered',
      ];
    // An answer published there could land in a stream (another service's events) or reach another service.
    if (!isUserInbox(msg.reply))
      return [
        'foreign_reply',
        { reply: msg.reply.slice(0, 200) },
        "request ignored: its reply subject is no user's inbox (_INBOX_<user>.)",
      ];
    return null;
  }

  function receive(subject: string, handler: Handler, msg: Msg): void {
    const refused = unanswerable(subject, msg);
    if (refused) {
      const [reason, fields, message] = refused;
      countUnanswered(subject, reason);
      dropWarnings.warn(`${subject}:${reason}`, { subject, reason, ...fields }, message);
      return;
    }
    const work = withHandlerSpan(subject, msg.headers, () => handle(subject, handler, msg)).catch((e: unknown) =>
      log.error({ err: e, subject }, 'request handling crashed'),
    );
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  }

  const instance = await nc.services.add({
    name: service,
    version: options.version,
    description: `The ${service} service of the clinic back end`,
    queue: service,
    metadata: options.metadata,
    statsHandler: async (endpoint) => figures.get(endpoint.subject)?.snapshot() ?? null,
  });
  for (const [subject, handler] of Object.entries(handlers)) {
    // nats.js calls the handler only without error: a failed subscription stops the whole service (below).
    instance.addEndpoint(endpointName(service, subject), {
      subject,
      handler: (_err, msg) => receive(subject, handler, msg),
    });
  }
  void instance.stopped.then((err) => {
    if (!stopping) log.error({ err }, 'NATS service stopped: its subjects are no longer answered');
  });
  log.info({ subjects: Object.keys(handlers), queue: service, service_id: instance.info().id }, 'serving');

  return {
    async stop() {
      stopping = true;
      await instance.stop();
      await Promise.allSettled([...inFlight]);
    },
  };
}
