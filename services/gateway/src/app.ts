import { randomUUID } from 'node:crypto';
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
import {
  accessOf,
  ADMIN_ONLY,
  decideAccess,
  HeaderNames,
  HTTP_ROUTES,
  IDEMPOTENCY_KEY_PATTERN,
  type Access,
  type Caller,
  type HttpRoute,
} from '@clinic/contracts';
import {
  callServiceRaw,
  createTokenVerifier,
  ifNoneMatchHolds,
  readCorrelationId,
  splitReply,
  ServiceTimeoutError,
  ServiceUnavailableError,
  type Logger,
} from '@clinic/service-kit';
import { registerAsyncApiDocs } from './asyncapi';
import { authenticate } from './auth';
import { registerCors } from './cors';
import { sendBinary } from './binary';
import { sendExport } from './export';
import { DRAIN_LIMIT_BYTES, parseJsonBodies } from './body';
import type { GatewayConfig } from './config';
import { requestEnvelope } from './envelope';
import { GATEWAY_MESSAGES, HttpError, sendFailure } from './errors';
import { HealthChecker } from './health';
import { allowedMethods, DOCS_PREFIX, PARAM_LENGTH_MAX } from './methods';
import { buildOpenApiDocument } from './openapi';
import { registerRateLimits } from './rate-limit';
import { clientErrorHandler, frameworkErrors } from './refusals';
import { instrumentGateway } from './telemetry';

export interface GatewayDeps {
  config: GatewayConfig;
  nc: NatsConnection;
  log: Logger;
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

export async function buildGateway({ config, nc, log }: GatewayDeps): Promise<FastifyInstance> {
  const app = Fastify({
    ...(config.tls ? { https: config.tls } : {}),
    loggerInstance: log as FastifyBaseLogger,
    // One line per request, written by the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'correlation_id' }),
    genReqId: (req) => readCorrelationId(req.headers[HeaderNames.correlationId] as string | undefined) ?? randomUUID(),
    // parseJsonBodies enforces bodyLimitBytes; this is only the outer bound.
    bodyLimit: DRAIN_LIMIT_BYTES,
    routerOptions: { maxParamLength: PARAM_LENGTH_MAX },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    frameworkErrors,
    clientErrorHandler: clientErrorHandler(log),
    // Node answers an HTTP/1.1 request without Host with a bare 400 of its own; the onRequest hook answers it instead.
    http: { requireHostHeader: false },
  });
  const verifyToken = createTokenVerifier(config.tokens);
  // Before the body is read: 401, or 403 for a role not allowed (or a token naming no branch under
  // BRANCH_SCOPE=required); else the caller and its token on the request (the caller on its log line either way).
  const authorize = (access: Access) => async (request: FastifyRequest) => {
    const { caller, token } = await authenticate(request, verifyToken);
    request.caller = caller;
    request.token = token;
    const decision = decideAccess(access, caller, config.tokens.access);
    if (decision === 'forbidden') throw new HttpError('FORBIDDEN');
    if (decision === 'unscoped') throw new HttpError('BRANCH_REQUIRED');
  };
  const health = new HealthChecker(nc, config.healthTimeoutMs);

  parseJsonBodies(app, config.bodyLimitBytes);
  // Schemas document the API; each service validates its own messages in the
  // spec's rule order, so the gateway neither validates nor reshapes.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  instrumentGateway(app);
  await registerCors(app, config.corsOrigins);
  app.addHook('onRequest', async (request, reply) => {
    reply.header(HeaderNames.correlationId, request.id);
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined)
      return sendFailure(reply, 'MALFORMED_REQUEST', GATEWAY_MESSAGES.hostRequired);
    // A known path asked with a method it does not have: 405, before any body is read.
    // Only a path no route matched can be one, or one a parameter matched (it may be a static path of other
    // methods: PUT /lab_bills/summary); requests a static route matched skip the router lookups.
    if (!request.is404 && !request.routeOptions.url?.includes(':')) return;
    const allowed = allowedMethods(app, request.url);
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      reply.header('allow', allowed.join(', '));
      return sendFailure(reply, 'METHOD_NOT_ALLOWED');
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
      caller_store_ids: request.caller?.store_ids,
      ...request.outcome,
    };
    if (reply.statusCode >= 500) request.log.error(line, 'request completed');
    else request.log.info(line, 'request completed');
  });

  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status === 413) return sendFailure(reply, 'BODY_TOO_LARGE');
    if (error instanceof HttpError) return sendFailure(reply, error.code, error.message);
    // Fastify's refusals of a body (unsupported media type, empty or malformed body).
    if ('code' in error && error.code?.startsWith('FST_ERR_CTP_'))
      return sendFailure(reply, 'INVALID_JSON', GATEWAY_MESSAGES.invalidJson);
    // The documentation's static files refuse a path that climbs out of their folder (403) or names nothing there.
    if (status === 403 || status === 404) return sendFailure(reply, 'ROUTE_NOT_FOUND');
    if (status >= 400 && status < 500)
      return sendFailure(reply, 'MALFORMED_REQUEST', GATEWAY_MESSAGES.badRequest, status);
    request.outcome = { err: error };
    return sendFailure(reply, 'INTERNAL_ERROR');
  });
  app.setNotFoundHandler((_request, reply) => sendFailure(reply, 'ROUTE_NOT_FOUND'));

  await registerRateLimits(app, config.rateLimit);
  // The document npm run openapi writes to docs/openapi.json, made the same way.
  await app.register(fastifySwagger, {
    mode: 'static',
    specification: { document: (await buildOpenApiDocument()) as never },
  });
  await app.register(fastifySwaggerUi, { routePrefix: DOCS_PREFIX });
  registerAsyncApiDocs(app);

  // Liveness for anyone (load balancers, compose): status only, never rate-limited. The report
  // names hosts and subjects, so it needs an admin token.
  app.get('/health', { schema: { hide: true }, config: { rateLimit: false } }, async (_request, reply) => {
    const liveness = await health.liveness();
    return reply.code(liveness.success ? 200 : 503).send(liveness);
  });
  app.get(
    '/health/details',
    { schema: { hide: true }, onRequest: authorize(HEALTH_DETAILS_ACCESS) },
    async (_request, reply) => {
      const report = await health.report();
      return reply.code(report.success ? 200 : 503).send(report);
    },
  );

  for (const route of HTTP_ROUTES) {
    app.route({
      method: route.method,
      url: route.url,
      onRequest: authorize(accessOf(route.subject, config.tokens.access)),
      handler: (request, reply) =>
        route.exports
          ? exportFile(route, request, reply, { config, nc })
          : forward(route, request, reply, { config, nc }),
    });
  }
  return app;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
    /** The caller's verified token, forwarded to the service, which checks it again. */
    token?: string;
    /** The body's bytes, once they parsed as JSON. */
    rawBody?: Buffer;
    /** What the request's one log line says beyond status and timing: the cause of a failure. */
    outcome?: Record<string, unknown>;
  }
}

const HEALTH_DETAILS_ACCESS: Access = { kind: 'roles', roles: ADMIN_ONLY };

/** An export's file, written from the service's pages (export.ts). */
async function exportFile(
  route: HttpRoute,
  request: FastifyRequest,
  reply: FastifyReply,
  deps: Pick<GatewayDeps, 'config' | 'nc'>,
): Promise<FastifyReply> {
  try {
    return await sendExport(route, request, reply, deps);
  } catch (err) {
    return unanswered(route, request, reply, deps.config, err);
  }
}

async function forward(
  route: HttpRoute,
  request: FastifyRequest,
  reply: FastifyReply,
  { config, nc }: Pick<GatewayDeps, 'config' | 'nc'>,
): Promise<FastifyReply> {
  const envelope = requestEnvelope(
    route,
    request.params as Record<string, string>,
    request.query as Record<string, string | string[]>,
    request.rawBody,
  );
  if (envelope.length > (nc.info?.max_payload ?? Infinity)) return sendFailure(reply, 'BODY_TOO_LARGE');

  try {
    const raw = await callServiceRaw(nc, route.subject, envelope, {
      token: request.token,
      correlationId: request.id,
      timeoutMs: config.requestTimeoutMs,
      idempotencyKey: idempotencyKeyOf(request),
      ifMatch: singleHeader(request, 'if-match'),
    });
    // The service's body goes out as it came: no parse and no second serialization.
    const { status, etag, body } = splitReply(raw);
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
  } catch (err) {
    return unanswered(route, request, reply, config, err);
  }
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
