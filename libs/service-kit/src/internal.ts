/**
 * Everything the kit's modules export, for the kit's own tests, the tools and
 * the test harnesses (`@clinic/service-kit/internal`). Services and the gateway
 * import the public surface, index.ts; nats.js splits its internal_mod.ts and
 * mod.ts the same way.
 */
export * from './env';
export * from './config';
export * from './logger';
export * from './errors';
export * from './mutex';
export * from './nats-client';
export * from './schema';
export * from './responder';
export * from './request-envelope';
export * from './strict-json';
export * from './request-params';
export * from './mongo';
export * from './id-allocator';
export * from './mongo-driver-fix';
export * from './database-breaker';
export * from './jetstream';
export * from './outbox';
export * from './outbox-collection';
export * from './prepared-events';
export * from './outbox-entries';
export * from './commit-records';
export * from './group-commit';
export * from './versioned-cache';
export * from './scoped-entries';
export * from './cache-coherence';
export * from './reference-data';
export * from './clock';
export * from './money';
export * from './validation';
export * from './arrays';
export * from './lifecycle';
export * from './tokens';
export * from './token-verifier';
export * from './jwks';
export * from './token-claims';
export * from './branch-scope';
export * from './secret-strength';
export * from './start-service';
export * from './audit';
export * from './metrics';
export * from './service-gauges';
export * from './tracing';
export * from './retry';
export * from './record-write';
export * from './field-check';
export * from './conditional';
