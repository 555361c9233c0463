/**
 * The gateway's HTTP metrics (requests by route, method and status; duration
 * by route; requests in flight), and its request span with the trace id on
 * its request log line.
 * The NATS request outcomes are counted by callServiceRaw (service-kit).
 */
import type { FastifyInstance } from 'fastify';
import {
  counter,
  endHttpSpan,
  gauge,
  histogram,
  LATENCY_BUCKETS,
  metricsEnabled,
  spanLogFields,
  startHttpSpan,
  tracingActive,
  type HttpSpan,
  type Logger,
} from '@clinic/service-kit';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span while tracing is on; its NATS requests go out under its context. */
    httpSpan?: HttpSpan | null;
  }
}

/** Requests no route matched are counted under one label, so that scanners cannot grow the series. */
const UNMATCHED = 'unmatched';

export function instrumentGateway(app: FastifyInstance): void {
  if (tracingActive()) {
    app.addHook('onRequest', (request, _reply, done) => {
      request.httpSpan = startHttpSpan(request.method, request.routeOptions.url ?? UNMATCHED, request.headers);
      // A sampled request's trace id goes on every line of the request. Fastify made the request a child logger
      // of its own: it takes the binding, cheaper than a second child.
      const fields = request.httpSpan ? spanLogFields(request.httpSpan.span) : {};
      if (fields.trace_id) (request.log as Logger).setBindings(fields);
      done();
    });
    app.addHook('onResponse', (request, reply, done) => {
      if (request.httpSpan) endHttpSpan(request.httpSpan, reply.statusCode);
      done();
    });
  }
  if (!metricsEnabled()) return;
  const requests = counter('clinic_http_requests_total', 'HTTP requests answered, by route, method and status', [
    'route',
    'method',
    'status',
  ]);
  const duration = histogram(
    'clinic_http_request_duration_seconds',
    'HTTP request durations, by route and method',
    ['route', 'method'],
    LATENCY_BUCKETS,
  );
  const inFlight = gauge({
    name: 'clinic_http_requests_in_flight',
    help: 'HTTP requests received and not yet answered',
  });
  app.addHook('onRequest', (_request, reply, done) => {
    inFlight.inc();
    // 'close' comes once whether the response was sent or the client went away.
    reply.raw.once('close', () => inFlight.dec());
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED;
    requests.inc({ route, method: request.method, status: String(reply.statusCode) });
    duration.observe({ route, method: request.method }, reply.elapsedTime / 1000);
    done();
  });
}
