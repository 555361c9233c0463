import { randomUUID } from 'node:crypto';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
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
  type Access,
  type Caller,
} from '@clinic/contracts';
import { createTokenVerifier, readCorrelationId, type Logger } from '@clinic/service-kit';
import { registerAsyncApiDocs } from './asyncapi';
import { authenticate } from './auth';
import { registerCors } from './cors';
import { DRAIN_LIMIT_BYTES, parseJsonBodies } from './body';
import type { GatewayConfig } from './config';
import { GATEWAY_MESSAGES, HttpError, sendFailure } from './errors';
import { exportFile, forward } from './forward';
import { HealthChecker } from './health';
import { allowedMethods, DOCS_PREFIX, PARAM_LENGTH_MAX, staticPathsOf } from './methods';
import { buildOpenApiDocument } from './openapi';
import { registerRateLimits } from './rate-limit';
import { clientErrorHandler, frameworkErrors } from './refusals';
import type { ReplyCache } from './reply-cache';
import { instrumentGateway } from './telemetry';

export interface GatewayDeps {
  config: GatewayConfig;
  nc: NatsConnection;
  log: Logger;
  /** The reply cache (reply-cache.ts); null: every read goes to its service. */
  replies?: ReplyCache | null;
}

export async function buildGateway({ config, nc, log, replies = null }: GatewayDeps): Promise<FastifyInstance> {
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
    // request.ip: the client behind the proxies TRUSTED_PROXIES names, else the peer (client-ip.ts).
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
  });
  const isStaticPath = staticPathsOf(app);
  const verifyToken = createTokenVerifier(config.tokens, { log });
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
    // Only a path no route matched can be one, or one a parameter matched that is a static path of other
    // methods (PUT /lab_bills/summary); every other request skips the router lookups.
    if (!request.is404 && !(request.routeOptions.url?.includes(':') && isStaticPath(request.url))) return;
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
      client_ip: request.ip,
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
  app.get('/health', { schema: { hide: true }, config: { rateLimit: false } }, async (request, reply) => {
    const liveness = await health.liveness(request.httpSpan?.context);
    return reply.code(liveness.success ? 200 : 503).send(liveness);
  });
  app.get(
    '/health/details',
    { schema: { hide: true }, onRequest: authorize(HEALTH_DETAILS_ACCESS) },
    async (request, reply) => {
      const report = await health.report(request.httpSpan?.context);
      // The provider's keys as this gateway holds them: an outage is shown here while the last good keys verify.
      const identityProvider = verifyToken.identityProvider?.();
      return reply
        .code(report.success ? 200 : 503)
        .send(identityProvider ? { ...report, identity_provider: identityProvider } : report);
    },
  );

  for (const route of HTTP_ROUTES) {
    app.route({
      method: route.method,
      url: route.url,
      onRequest: authorize(accessOf(route.subject, config.tokens.access)),
      handler: (request, reply) =>
        route.exports
          ? exportFile(route, request, reply, { config, nc, replies })
          : forward(route, request, reply, { config, nc, replies }),
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
