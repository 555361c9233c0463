/**
 * The service kit's storage-free surface (`@clinic/service-kit`): nothing reachable from here loads the database
 * driver, so the gateway can use it; each name is listed on purpose (CONTRIBUTING.md: libs/service-kit, by concern).
 */

// A service: start-up, its handlers, the spec's envelope errors.
export { EncodedReply } from './nats/reply-chunks';
export { askAsCaller, refusalOf } from './nats/caller-requests';
export type { Handler, HandlerContext } from './nats/responder';
export { subjectHandlers } from './nats/subject-handlers';
export {
  ServiceError,
  approvalRequired,
  badRequest,
  fail,
  unprocessable,
  type Invalid,
  type NotFoundCode,
} from './domain/errors';
export { callerOf, pathId, queryId, queryText, requiredQueryId } from './nats/request-params';
export { optionalPage, pageFields, pageOfList, parsePage, type Page } from './nats/request-params';
// Conditional requests: a single record's ETag, If-Match inside its write, If-None-Match at the gateway.
export { entityTag, ifNoneMatchHolds, requireCurrent, taggedReply, withNewTag } from './domain/conditional';
export { idempotencyClaim, type IdempotencyClaim } from './domain/idempotency';
// Branch scope (a token's store_ids): refuse a named branch, hide another branch's record, keep a list to the caller's.
export {
  branchesOf,
  foundInBranch,
  reachesBranch,
  requireBranch,
  withinBranches,
  type ActingFor,
} from './auth/branch-scope';
export { parseStrictJson, type StrictJson, type StrictJsonProblem } from './domain/strict-json';

// Rules: small predicates, calendar, money, JSON schemas.
export {
  given,
  has,
  isBlankString,
  isFiniteNumber,
  isNonBlankString,
  isPlainObject,
  isPositiveId,
  type PlainObject,
} from './domain/validation';
export { escapeRegExp, parseIntegerText, trimmedOrNull, type QueryParams } from './domain/validation';
export { itemAt } from './domain/arrays';
export { ClinicClock, MONTH_NAMES, daysInMonth, weekdayOf } from './domain/clock';
export { fromCents, nullableAmount, nullableCents, percentOf, toCents, type Cents } from './domain/money';
export { optionalText, requireField, requireObject, requireShape, validAmount, validField } from './domain/field-check';

// Calling a service over NATS.
export {
  callService,
  callServiceRaw,
  callServiceReply,
  type RawReply,
  connectNats,
  splitReply,
  type SplitReply,
  ServiceTimeoutError,
  ServiceUnavailableError,
} from './nats/nats-client';
export { readCorrelationId } from './nats/request-envelope';

// Hot reads kept exact across processes (the services' caches and the gateway's reply cache).
export { ScopeVersions } from './cache/scope-versions';
export { VersionedCache } from './cache/versioned-cache';

// A process: settings, logs, tokens, metrics, traces, shutdown.
export { METRICS_ENV, metricsSettingsOf, type MetricsSettings } from './process/metrics';
export { integerVar, NATS_ENV, readEnv, textVar, type EnvProperties, type EnvValues } from './process/env';
export { TOKEN_ENV } from './auth/tokens';
export { natsSettings, type NatsSettings } from './process/config';
export { createLogger, type Logger } from './process/logger';
export { TokenRefused } from './auth/token-claims';
export { createTokenVerifier, type TokenVerifier, type VerifiedCaller } from './auth/token-verifier';
export { tokenPolicyOf, type TokenPolicy } from './auth/tokens';
export { LATENCY_BUCKETS, counter, gauge, histogram, metricsEnabled, startMetrics } from './process/metrics';
export { reportCertificateExpiry } from './process/certificate-expiry';
export { spanLogFields, stopTracing, tracingActive } from './process/tracing';
export { endHttpSpan, startHttpSpan, type HttpSpan } from './process/http-span';
export { runProcess } from './process/lifecycle';
