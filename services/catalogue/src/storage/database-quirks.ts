/**
 * The catalogue's seam to the database's quirks: where FerretDB v1 (the
 * embedded server) behaves unlike MongoDB 7, the workaround the catalogue's
 * storage uses comes from here (docs in libs/service-kit/src/storage/database-quirks.ts).
 * Storage files import these from this module, never from the kit.
 *
 * Kept in the layout rather than here: a charge's name is unique among live
 * charges through `live_key` (domain/charge.ts), as FerretDB v1 has no partial index.
 */
// String keys, which FerretDB v1 looks up through its primary-key index; the catalogue's indexes created one per command.
export { docKey, ensureCatalogueIndexes } from '@clinic/service-kit/storage';
