// Imported first by main.ts: the OpenTelemetry SDK, with @fastify/otel, starts before Fastify is created.
import type { FastifyRequest } from 'fastify';
import { startTracing } from '@clinic/service-kit/tracing';

startTracing('gateway', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { FastifyOtelInstrumentation } = require('@fastify/otel') as typeof import('@fastify/otel');
  return [
    new FastifyOtelInstrumentation({
      registerOnInitialization: true,
      // The request span and the handler's; the gateway's own hooks are too small to be worth a span each.
      instrumentHooks: false,
      requestHook: (span, request) => {
        const { method, routeOptions } = request as FastifyRequest;
        span.updateName(`${method} ${routeOptions.url ?? 'unmatched'}`);
      },
    }),
  ];
});
