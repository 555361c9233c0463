/**
 * The sessions service's seam to the database's quirks: where FerretDB v1
 * (the embedded server) behaves unlike MongoDB 7, the workaround the sessions'
 * storage uses comes from here (docs in libs/service-kit/src/storage/database-quirks.ts).
 * Storage files import these from this module, never from the kit.
 *
 * Kept in the layout rather than here: every read names its index (indexes.ts),
 * and a run's sessions are found with two queries rather than one `$or`, which
 * the embedded server answers by reading every run (runs.ts).
 */
// String keys, which FerretDB v1 looks up through its primary-key index; the catalogue's indexes created one per command.
export { docKey, ensureCatalogueIndexes } from '@clinic/service-kit/storage';
// `$in` lists and deletes by key in slices the embedded server serves from its index.
export { deleteByKeys, inChunks } from '@clinic/service-kit/storage';
// A unique violation, reported two ways; a bulk write's per-document errors; fresh ids without an atomic $inc.
export { isDuplicateKeyError, withFreshId, writeErrorsOf } from '@clinic/service-kit/storage';
