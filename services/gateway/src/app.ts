import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { NatsConnection } from 'nats';
import sjson from 'secure-json-parse';
import {
  ADMIN_ONLY,
  AUTH_MESSAGES,
  BAD_IDEMPOTENCY_KEY_MESSAGE,
  decideAccess,
  GENERIC_ERROR_MESSAGE,
  HeaderNames,
  HTTP_ROUTES,
  IDEMPOTENCY_KEY_PATTERN,
  Limits,
  nestsDeeperThan,
  TOO_DEEP_MESSAGE,
  type Access,
  type HttpRoute,
} from '@clinic/contracts';
import {
  callServiceRaw,
  createTokenVerifier,
  readCorrelationId,
  splitReply,
  ServiceTimeoutError,
  ServiceUnavailableError,
  type Logger,
  type TokenVerifier,
} from '@clinic/service-kit';
import { registerAsyncApiDocs } from './asyncapi';
import { authenticate, HttpError } from './auth';
import { sendBinary } from './binary';
import { requestEnvelope } from './envelope';
import type { GatewayConfig } from './config';
import { HealthChecker } from './health';
import { allowedMethods, DOCS_PREFIX, PARAM_LENGTH_MAX } from './methods';
import { finishOpenApiDocument, openApiDocument, routeSchema } from './openapi';
import { registerRateLimits } from './rate-limit';
import { instrumentGateway } from './telemetry';

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
  requestTimeout: 'Request timed out.',
} as const;

export interface GatewayDeps {
  config: GatewayConfig;
  nc: NatsConnection;
  log: Logger;
}

/**
 * An oversized body is still read (and discarded) up to this size, so that the
 * client, which is usually still sending, receives the 413 instead of a reset
 * connection. Beyond it the connection is dropped.
 */
const DRAIN_LIMIT_BYTES = 32 * 1024 * 1024;

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
      finish(new HttpError(413, GATEWAY_MESSAGES.tooLarge));
    } else if (size <= limit) {
      chunks.push(chunk);
    } else {
      chunks.length = 0;
    }
  });
  payload.on('end', () => finish(size > limit ? new HttpError(413, GATEWAY_MESSAGES.tooLarge) : null, Buffer.concat(chunks)));
  payload.on('error', (err: Error) => finish(err));
}

function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers[HeaderNames.idempotencyKey];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(raw)) throw new HttpError(400, GATEWAY_MESSAGES.badIdempotencyKey);
  return raw;
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers over
 * its 16 KiB limit, a malformed request, a timeout) still get the envelope,
 * written straight to the socket, and one log line.
 */
function clientErrorHandler(log: Logger) {
  // The parser keeps failing on what the client is still sending: the first refusal is the answer.
  const answered = new WeakSet<Duplex>();
  return (err: Error & { code?: string }, socket: Duplex): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
    answered.add(socket);
    const [status, error] =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, GATEWAY_MESSAGES.headersTooLarge]
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, GATEWAY_MESSAGES.requestTimeout]
          : [400, GATEWAY_MESSAGES.badRequest];
    const correlationId = randomUUID();
    const body = JSON.stringify({ success: false, error });
    log.info({ correlation_id: correlationId, status, cause: err.code ?? err.message }, 'request refused by the HTTP parser');
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
function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const [status, message] = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? [414, GATEWAY_MESSAGES.pathTooLong] : [400, GATEWAY_MESSAGES.badPath];
  request.log.info({ method: request.method, url: request.url.slice(0, 300), status, cause: error.code }, 'request completed');
  reply.header(HeaderNames.correlationId, request.id);
  sendFailure(reply, status, message);
}

export async function buildGateway({ config, nc, log }: GatewayDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    // One line per request, written by the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'correlation_id' }),
    genReqId: (req) => readCorrelationId(req.headers[HeaderNames.correlationId] as string | undefined) ?? randomUUID(),
    // The parser below enforces bodyLimitBytes; this is only the outer bound.
    bodyLimit: DRAIN_LIMIT_BYTES,
    routerOptions: { maxParamLength: PARAM_LENGTH_MAX },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    frameworkErrors,
    clientErrorHandler: clientErrorHandler(log),
  });
  const verifyToken = createTokenVerifier(config.tokens);
  const health = new HealthChecker(nc, config.healthTimeoutMs);

  // Bodies are parsed here whatever their declared type, so that anything that
  // is not JSON gets the spec's 400; an empty body reaches the service as
  // "no body". Prototype-poisoning keys are rejected outright.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request, payload, done) => {
    readLimitedBody(payload, config.bodyLimitBytes, (err, body) => {
      if (err) return done(err, undefined);
      if (!body || body.length === 0) return done(null, undefined);
      try {
        const parsed: unknown = sjson.parse(body, undefined, { protoAction: 'error', constructorAction: 'error' });
        if (nestsDeeperThan(parsed, Limits.jsonDepthMax)) return done(new HttpError(400, TOO_DEEP_MESSAGE), undefined);
        // Forwarded as it came: re-encoded, a body can grow (1e20 is written 100000000000000000000).
        request.rawBody = withoutBom(body);
        done(null, parsed);
      } catch (parseError) {
        const poisoned = parseError instanceof SyntaxError && /forbidden/i.test(parseError.message);
        done(new HttpError(400, poisoned ? GATEWAY_MESSAGES.poisoned : GATEWAY_MESSAGES.invalidJson), undefined);
      }
    });
  });
  // Schemas document the API; each service validates its own messages in the
  // spec's rule order, so the gateway neither validates nor reshapes.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  instrumentGateway(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.header(HeaderNames.correlationId, request.id);
    // A known path asked with a method it does not have: 405, before any body is read.
    const allowed = allowedMethods(app, request.url);
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      reply.header('allow', allowed.join(', '));
      return sendFailure(reply, 405, GATEWAY_MESSAGES.methodNotAllowed);
    }
  });
  app.addHook('onResponse', async (request, reply) => {
    const line = {
      method: request.method,
      url: request.url,
      status: reply.statusCode,
      duration_ms: Math.round(reply.elapsedTime * 100) / 100,
      caller_sub: request.caller?.sub,
      caller_role: request.caller?.role,
      ...request.outcome,
    };
    if (reply.statusCode >= 500) request.log.error(line, 'request completed');
    else request.log.info(line, 'request completed');
  });

  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status === 413) return sendFailure(reply, 413, GATEWAY_MESSAGES.tooLarge);
    if (error instanceof HttpError) return sendFailure(reply, status, error.message);
    if (status >= 400 && status < 500) {
      // Fastify's own client errors (unsupported media type, empty or malformed body).
      return sendFailure(reply, 400, GATEWAY_MESSAGES.invalidJson);
    }
    request.outcome = { err: error };
    return sendFailure(reply, 500, GENERIC_ERROR_MESSAGE);
  });
  app.setNotFoundHandler((_request, reply) => sendFailure(reply, 404, GATEWAY_MESSAGES.notFound));

  await registerRateLimits(app, config.rateLimit);
  await app.register(fastifySwagger, {
    openapi: openApiDocument(),
    transformObject: (document) => finishOpenApiDocument('openapiObject' in document ? (document.openapiObject as never) : {}) as never,
  });
  await app.register(fastifySwaggerUi, { routePrefix: DOCS_PREFIX });
  registerAsyncApiDocs(app);

  // Liveness for anyone (load balancers, compose): status only, never rate-limited. The report
  // names hosts and subjects, so it needs an admin token.
  app.get('/health', { schema: { hide: true }, config: { rateLimit: false } }, async (_request, reply) => {
    const liveness = await health.liveness();
    return reply.code(liveness.success ? 200 : 503).send(liveness);
  });
  app.get('/health/details', { schema: { hide: true }, onRequest: (request) => authorize(HEALTH_DETAILS_ACCESS, request, verifyToken) }, async (_request, reply) => {
    const report = await health.report();
    return reply.code(report.success ? 200 : 503).send(report);
  });

  for (const route of HTTP_ROUTES) {
    app.route({
      method: route.method,
      url: route.url,
      schema: routeSchema(route),
      // Before the body is read: a caller without a valid token or the role gets 401/403 whatever it sends.
      onRequest: (request) => authorize(route.access, request, verifyToken),
      handler: (request, reply) => forward(route, request, reply, { config, nc }),
    });
  }
  return app;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: { sub: number | string; role: string };
    /** The caller's verified token, forwarded to the service, which checks it again. */
    token?: string;
    /** The body's bytes, once they parsed as JSON. */
    rawBody?: Buffer;
    /** What the request's one log line says beyond status and timing: the cause of a failure. */
    outcome?: Record<string, unknown>;
  }
}

const HEALTH_DETAILS_ACCESS: Access = { kind: 'roles', roles: ADMIN_ONLY };

/** 401 or 403, else the caller and its token on the request (the caller on its log line either way). */
async function authorize(access: Access, request: FastifyRequest, verifyToken: TokenVerifier): Promise<void> {
  const { caller, token } = authenticate(request, verifyToken);
  request.caller = caller;
  request.token = token;
  if (decideAccess(access, caller) === 'forbidden') throw new HttpError(403, AUTH_MESSAGES.forbidden);
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

function withoutBom(body: Buffer): Buffer {
  return body.subarray(0, 3).equals(UTF8_BOM) ? body.subarray(3) : body;
}

function sendFailure(reply: FastifyReply, status: number, error: string): FastifyReply {
  return reply.code(status).send({ success: false, error });
}

async function forward(
  route: HttpRoute,
  request: FastifyRequest,
  reply: FastifyReply,
  { config, nc }: Pick<GatewayDeps, 'config' | 'nc'>,
): Promise<FastifyReply> {
  const envelope = requestEnvelope(route, request.params as Record<string, string>, request.query as Record<string, string | string[]>, request.rawBody);
  if (envelope.length > (nc.info?.max_payload ?? Infinity)) return sendFailure(reply, 413, GATEWAY_MESSAGES.tooLarge);

  try {
    const raw = await callServiceRaw(nc, route.subject, envelope, {
      token: request.token,
      correlationId: request.id,
      timeoutMs: config.requestTimeoutMs,
      idempotencyKey: idempotencyKeyOf(request),
    });
    // The service's body goes out as it came: no parse and no second serialization.
    const { status, body } = splitReply(raw);
    const binary = route.produces && status === 200 ? sendBinary(reply.code(status), route.produces, body) : null;
    if (binary) return binary;
    return reply.code(status).type('application/json; charset=utf-8').send(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
  } catch (err) {
    if (err instanceof ServiceUnavailableError) {
      request.outcome = { subject: route.subject, cause: 'no responder' };
      return sendFailure(reply, 503, GATEWAY_MESSAGES.unavailable);
    }
    if (err instanceof ServiceTimeoutError) {
      request.outcome = { subject: route.subject, cause: `no reply within ${config.requestTimeoutMs} ms` };
      return sendFailure(reply, 504, GATEWAY_MESSAGES.timeout);
    }
    throw err;
  }
}
