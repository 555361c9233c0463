import type { Context } from '@opentelemetry/api';
import {
  ErrorCode,
  headers as natsHeaders,
  NatsError,
  RequestStrategy,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type RequestManyOptions,
} from 'nats';
import {
  HeaderNames,
  inboxPrefixOf,
  type ResponseBody,
  type ServiceReply,
  type ServiceRequest,
} from '@clinic/contracts';
import type { NatsSettings } from '../process/config';
import { connect } from './coalescing-transport';
import type { Logger } from '../process/logger';
import { countNatsRequest } from '../process/metrics';
import { withRequestSpan } from '../process/tracing';

export interface ConnectOptions {
  name: string;
  log: Logger;
  /** Keep retrying the first connection (services) or fail at once (command-line tools). */
  waitForServer?: boolean;
  /** Try the servers in the order given instead of a random one (tests that need a given node). */
  inOrder?: boolean;
}

/**
 * Whether the server this connection is on sees fewer than a majority of the
 * cluster's nodes (its `connect_urls` shrink as its routes drop): cut off by
 * a partition, it can reach none of the services and streams on the other
 * side, while another node would.
 */
export function onMinorityNode(nc: NatsConnection, configuredNodes: number): boolean {
  if (configuredNodes < 3 || !nc.info?.cluster) return false;
  const seen = new Set(nc.info.connect_urls ?? []).size;
  return seen > 0 && seen < Math.floor(configuredNodes / 2) + 1;
}

/** How often a connection checks that its server still sees a majority of the cluster. */
const MOVE_CHECK_MS = 2_000;

export async function connectNats(settings: NatsSettings, options: ConnectOptions): Promise<NatsConnection> {
  const waitForServer = options.waitForServer ?? true;
  const servers = settings.url.split(',');
  const nc = await connect({
    servers,
    noRandomize: options.inOrder ?? false,
    name: options.name,
    user: settings.user,
    pass: settings.password,
    // TLS only, the server's certificate checked against this CA (and its name against the URL's host).
    ...(settings.tlsCaFile ? { tls: { caFile: settings.tlsCaFile } } : {}),
    // Replies (JetStream's included) come to the user's own prefix, the only inbox it may subscribe to.
    inboxPrefix: settings.user ? inboxPrefixOf(settings.user) : undefined,
    waitOnFirstConnect: waitForServer,
    maxReconnectAttempts: waitForServer ? -1 : 0,
    reconnectTimeWait: 250,
    reconnectJitter: 250,
    pingInterval: 10_000,
    // Otherwise every request builds two Error objects (stack traces) up front,
    // which the gateway's profile showed at 6% of its CPU.
    noAsyncTraces: true,
  });
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'pingTimer') continue;
      options.log.info(
        { nats_status: status.type, data: typeof status.data === 'object' ? status.data : String(status.data) },
        'nats connection status',
      );
    }
  })();
  // A client stays with a server it can reach, even one partitioned from the rest: move to another.
  // (The server's INFO updates nc.info, but nats.js reports no event when a configured node leaves it.)
  if (servers.length >= 3) {
    const check = setInterval(() => {
      if (nc.isClosed() || !onMinorityNode(nc, servers.length)) return;
      options.log.warn(
        { server: nc.info?.server_name, sees: nc.info?.connect_urls },
        'nats server is cut off from its cluster; moving to another',
      );
      nc.reconnect().catch(() => undefined);
    }, MOVE_CHECK_MS);
    check.unref();
    void nc.closed().then(() => clearInterval(check));
  }
  return nc;
}

export class ServiceUnavailableError extends Error {}
export class ServiceTimeoutError extends Error {}

export interface CallOptions {
  /** The caller's token (JWT), sent as `authorization: Bearer <token>`; the service verifies it. */
  token?: string | null;
  correlationId: string;
  timeoutMs: number;
  idempotencyKey?: string;
  /** The caller's If-Match header, for an update or a delete (conditional.ts). */
  ifMatch?: string;
  /** The trace context the request goes out under (the gateway's HTTP span); by default the active one. */
  traceContext?: Context;
}

/** Sends one request in the envelope and returns the service's reply. */
export async function callService(
  nc: NatsConnection,
  subject: string,
  request: ServiceRequest,
  options: CallOptions,
): Promise<ServiceReply<ResponseBody>> {
  const raw = await callServiceRaw(nc, subject, request, options);
  return JSON.parse(new TextDecoder().decode(raw)) as ServiceReply<ResponseBody>;
}

/** `{"status":NNN,` then, on a single record's read, `"etag":"\"...\"",`, then `"body":`. */
const REPLY_PREFIX = /^\{"status":(\d{3}),(?:"etag":("(?:[^"\\]|\\.){1,200}"),)?"body":/;
const encoder = new TextEncoder();

export type SplitReply = { status: number; etag?: string; body: Uint8Array };

/**
 * The status, the ETag and the body's JSON bytes of a reply, without parsing
 * the body: services write `{"status":NNN,["etag":"...",]"body":...}`, so the
 * body is everything between that prefix and the closing brace. Anything else
 * is parsed in full.
 */
export function splitReply(raw: Uint8Array): SplitReply {
  const head = new TextDecoder().decode(raw.subarray(0, 300));
  const match = REPLY_PREFIX.exec(head);
  const slice =
    match && raw[raw.length - 1] === 0x7d ? raw.subarray(Buffer.byteLength(match[0]), raw.length - 1) : null;
  if (match && slice && isWholeValue(slice)) {
    const body = slice;
    return match[2]
      ? { status: Number(match[1]), etag: JSON.parse(match[2]) as string, body }
      : { status: Number(match[1]), body };
  }
  const reply = JSON.parse(new TextDecoder().decode(raw)) as ServiceReply<ResponseBody>;
  const body = encoder.encode(JSON.stringify(reply.body));
  return typeof reply.etag === 'string'
    ? { status: reply.status, etag: reply.etag, body }
    : { status: reply.status, body };
}

/**
 * Whether bytes are one object or array closed exactly at their end: a reply
 * cut short or with a brace missing is parsed in full (and refused) instead of
 * being passed on as a body. Strings are skipped with their escapes.
 */
function isWholeValue(bytes: Uint8Array): boolean {
  const open = bytes[0];
  if (open !== 0x7b && open !== 0x5b) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === 0x5c) i++;
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x7b || b === 0x5b) depth++;
    else if ((b === 0x7d || b === 0x5d) && --depth === 0) return i === bytes.length - 1;
  }
  return false;
}

/** Like callService, but returns the reply's bytes as they came. */
export async function callServiceRaw(
  nc: NatsConnection,
  subject: string,
  request: ServiceRequest | Uint8Array,
  options: CallOptions,
): Promise<Uint8Array> {
  return (await callServiceReply(nc, subject, request, options)).data;
}

/** A reply's bytes as they came, and the headers of its (first) message. */
export interface RawReply {
  data: Uint8Array;
  headers?: MsgHdrs;
}

/** Like callServiceRaw, with the reply's headers. */
export async function callServiceReply(
  nc: NatsConnection,
  subject: string,
  request: ServiceRequest | Uint8Array,
  options: CallOptions,
): Promise<RawReply> {
  const h = natsHeaders();
  h.set(HeaderNames.correlationId, options.correlationId);
  h.set(HeaderNames.deadline, String(Date.now() + options.timeoutMs));
  if (options.token) h.set(HeaderNames.authorization, `Bearer ${options.token}`);
  if (options.idempotencyKey) h.set(HeaderNames.idempotencyKey, options.idempotencyKey);
  if (options.ifMatch) h.set(HeaderNames.ifMatch, options.ifMatch);
  const payload = request instanceof Uint8Array ? request : encoder.encode(JSON.stringify(request));
  try {
    const reply = await withRequestSpan(
      subject,
      h,
      () => receiveReply(nc, subject, payload, h, options.timeoutMs),
      options.traceContext,
    );
    countNatsRequest(subject, 'ok');
    return reply;
  } catch (err) {
    if (err instanceof NatsError && err.code === ErrorCode.NoResponders) {
      countNatsRequest(subject, '503');
      throw new ServiceUnavailableError(`No service answers ${subject}`);
    }
    countNatsRequest(subject, err instanceof ServiceTimeoutError ? '504' : 'error');
    throw err;
  }
}

/**
 * nc.requestMany without the caller's stack trace: nats.js 2.29's RequestMany
 * captures one for every request whatever noAsyncTraces says (its
 * constructor does not take the option), about 50 µs of the gateway's CPU a
 * request. The request is made synchronously, so the limit is back before
 * anything else runs.
 */
export function requestReplies(
  nc: NatsConnection,
  subject: string,
  payload: Uint8Array,
  options: Partial<RequestManyOptions>,
): Promise<AsyncIterable<Msg>> {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return nc.requestMany(subject, payload, options);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * Sends a request and gathers its reply: one message, or the messages of a
 * reply too large for one (see HeaderNames.chunkCount), joined in order.
 */
async function receiveReply(
  nc: NatsConnection,
  subject: string,
  payload: Uint8Array,
  headers: MsgHdrs,
  timeoutMs: number,
): Promise<RawReply> {
  const replies = await requestReplies(nc, subject, payload, {
    maxWait: timeoutMs,
    strategy: RequestStrategy.Timer,
    headers,
  });
  const chunks: Uint8Array[] = [];
  let expected = 1;
  let first: MsgHdrs | undefined;
  for await (const msg of replies) {
    if (chunks.length === 0) {
      expected = Number(msg.headers?.get(HeaderNames.chunkCount) || 1);
      first = msg.headers;
    }
    if (Number(msg.headers?.get(HeaderNames.chunkIndex) || 0) !== chunks.length) {
      throw new Error(`Reply on ${subject} came out of order`);
    }
    chunks.push(msg.data);
    if (chunks.length >= expected) break;
  }
  if (chunks.length < expected) {
    throw new ServiceTimeoutError(
      chunks.length === 0
        ? `No reply on ${subject} within ${timeoutMs} ms`
        : `Incomplete reply on ${subject} within ${timeoutMs} ms`,
    );
  }
  const [only] = chunks;
  return { data: chunks.length === 1 && only ? only : Buffer.concat(chunks), headers: first };
}
