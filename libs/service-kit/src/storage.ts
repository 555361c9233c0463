/**
 * The service kit's storage surface (`@clinic/service-kit/storage`): a
 * service's start-up (its database, outbox, caches) and what its storage layer
 * stands on: the database's quirks, ids, compare-and-set writes, the outbox,
 * the audit trail, caches, reference data. Only services import it; the
 * storage-free rest is index.ts.
 */

// A service's start-up: its database, NATS, outbox, reference data and handlers.
export { startService, type ServiceDefinition, type ServiceInfra } from './service/start-service';
export {
  deleteByKeys,
  docKey,
  ensureIndexes,
  inChunks,
  isDuplicateKeyError,
  isFerretDB,
  writeErrorsOf,
  type IndexSpec,
} from './storage/database-quirks';
export { ensureCatalogueIndexes, indexRef, type IndexedCollection } from './storage/index-catalogue';
export { RecordWriter, type RecordWrite, type StorageDeps } from './storage/record-write';
export { IdAllocator, movePastIfTaken, withFreshId } from './storage/id-allocator';
export { Outbox } from './storage/outbox';
export { fenceCleared } from './storage/fences';
export {
  entityProof,
  newEventId,
  withAlongside,
  withEventId,
  type CarriedDoc,
  type EventSpec,
  type PreparedEvents,
  type WriteOptions,
  type WriteProof,
} from './storage/outbox-entries';
export {
  AuditTrail,
  auditTrailIndex,
  fieldChanges,
  type AuditEntryDoc,
  type AuditEntryView,
  type FieldChange,
} from './storage/audit';
export { GroupCommit } from './concurrency/group-commit';
export { KeyedMutex } from './concurrency/mutex';
export { BatchedFinds } from './storage/batched-finds';
export { VersionedCache, type Share } from './cache/versioned-cache';
export { ScopeVersions } from './cache/scope-versions';
export { ReferenceData, refCollectionName, type AppliedRecord, type StoredRef } from './storage/reference-data';
export { ReferenceCache, refScope } from './storage/reference-cache';
