/**
 * The service kit's public surface: what a service and the gateway build on.
 * Each name is listed here on purpose, from internal.ts (everything, for
 * tests and tools), as nats.js's mod.ts lists what it takes from its
 * internal_mod.ts. Tracing starts from '@clinic/service-kit/tracing', before
 * anything else is loaded.
 */

// A service: start-up, its handlers, the spec's envelope errors.
export { startService, type ServiceDefinition, type ServiceInfra } from './internal';
export { EncodedReply, type Handler, type HandlerContext } from './internal';
export { ServiceError, badRequest, fail, unprocessable, type Invalid } from './internal';
export { callerOf, pathId, queryId, queryText, requiredQueryId } from './internal';
export { optionalPage, pageFields, pageOfList, parsePage, type Page } from './internal';
// Conditional requests: a single record's ETag, If-Match inside its write, If-None-Match at the gateway.
export { entityTag, ifNoneMatchHolds, requireCurrent, taggedReply } from './internal';
// Branch scope (a token's store_ids): refuse a named branch, hide another branch's record, keep a list to the caller's.
export { branchesOf, foundInBranch, reachesBranch, requireBranch, withinBranches, type ActingFor } from './internal';
export { parseStrictJson, type StrictJson, type StrictJsonProblem } from './internal';

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
} from './internal';
export { escapeRegExp, parseIntegerText, trimmedOrNull, type QueryParams } from './internal';
export { itemAt } from './internal';
export { ClinicClock, MONTH_NAMES, daysInMonth, weekdayOf } from './internal';
export { fromCents, nullableAmount, nullableCents, percentOf, toCents, type Cents } from './internal';
export { requireField, requireShape, validField } from './internal';

// Storage: the database's quirks, ids, the outbox, the audit trail, caches, locks, reference data.
export {
  deleteByKeys,
  docKey,
  ensureIndexes,
  inChunks,
  isDuplicateKeyError,
  writeErrorsOf,
  type IndexedCollection,
} from './internal';
export { isFerretDB, type IndexSpec } from './internal';
export { RecordWriter, type StorageDeps } from './internal';
export { IdAllocator, movePastIfTaken, withFreshId } from './internal';
export {
  Outbox,
  entityProof,
  newEventId,
  withAlongside,
  withEventId,
  type CommitRecord,
  type EventSpec,
  type PreparedEvents,
  type WriteOptions,
  type WriteProof,
} from './internal';
export { AuditTrail, auditTrailIndex, fieldChanges, type AuditEntryView, type FieldChange } from './internal';
export { GroupCommit, VersionedCache, type Share } from './internal';
export { CacheCoherence, ScopedEntries } from './internal';
export { ReferenceData, refCollectionName, type StoredRef } from './internal';

// Calling a service over NATS.
export {
  callService,
  callServiceRaw,
  callServiceReply,
  type RawReply,
  connectNats,
  readCorrelationId,
  splitReply,
  ServiceTimeoutError,
  ServiceUnavailableError,
} from './internal';

// A process: settings, logs, tokens, metrics, traces, shutdown.
export {
  METRICS_ENV,
  NATS_ENV,
  TOKEN_ENV,
  metricsSettingsOf,
  natsSettings,
  readEnv,
  type EnvProperties,
  type EnvValues,
  type MetricsSettings,
  type NatsSettings,
} from './internal';
export { createLogger, type Logger } from './internal';
export {
  TokenRefused,
  createTokenVerifier,
  tokenPolicyOf,
  type TokenPolicy,
  type TokenVerifier,
  type VerifiedCaller,
} from './internal';
export { LATENCY_BUCKETS, counter, gauge, histogram, metricsEnabled, startMetrics } from './internal';
export { stopTracing, traceLogFields, tracingActive } from './internal';
export { runProcess } from './internal';
