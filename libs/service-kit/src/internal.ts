/**
 * Everything the kit's modules export, for the kit's own tests, the tools and
 * the test harnesses (`@clinic/service-kit/internal`). Services and the gateway
 * import the public surface, index.ts; nats.js splits its internal_mod.ts and
 * mod.ts the same way.
 */
export * from './process/env';
export * from './process/secret-files';
export * from './process/config';
export * from './process/outside-systems';
export * from './process/logger';
export * from './domain/errors';
export * from './concurrency/mutex';
export * from './nats/nats-client';
export * from './domain/schema';
export * from './nats/responder';
export * from './nats/request-envelope';
export * from './nats/reply-chunks';
export * from './domain/strict-json';
export * from './nats/request-params';
export * from './storage/mongo';
export * from './storage/database-quirks';
export * from './storage/index-catalogue';
export * from './storage/id-allocator';
export * from './storage/mongo-driver-internals';
export * from './storage/database-breaker';
export * from './nats/jetstream';
export * from './nats/provision';
export * from './storage/outbox';
export * from './storage/outbox-relay';
export * from './storage/outbox-collection';
export * from './storage/prepared-events';
export * from './storage/outbox-entries';
export * from './storage/carried-docs';
export * from './storage/batched-updates';
export * from './storage/batched-finds';
export * from './concurrency/group-commit';
export * from './cache/versioned-cache';
export * from './cache/scope-versions';
export * from './storage/reference-data';
export * from './storage/reference-cache';
export * from './domain/clock';
export * from './domain/money';
export * from './domain/idempotency';
export * from './domain/validation';
export * from './domain/arrays';
export * from './process/lifecycle';
export * from './auth/tokens';
export * from './auth/token-verifier';
export * from './auth/jwks';
export * from './auth/token-claims';
export * from './auth/branch-scope';
export * from './auth/secret-strength';
export * from './service/start-service';
export * from './storage/audit';
export * from './process/metrics';
export * from './storage/database-metrics';
export * from './storage/database-tracing';
export * from './service/service-gauges';
export * from './process/tracing';
export * from './process/retry';
export * from './storage/record-write';
export * from './domain/field-check';
export * from './domain/conditional';
