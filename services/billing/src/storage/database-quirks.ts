/**
 * Billing's seam to the database's quirks: where FerretDB v1 (the embedded
 * server) behaves unlike MongoDB 7, the workaround billing's storage uses
 * comes from here, the kit's (docs in libs/service-kit/src/storage/database-quirks.ts)
 * and billing's own. Storage files import these from this module, never from the kit.
 *
 * Kept in the layout rather than here: every read names its index (indexes.ts:
 * the embedded server plans only from a hint), a search reads the trigram table
 * on the embedded server (search.ts), and the shared bill-number mark may lag
 * because `$max` is not atomic there (bill-numbers.ts).
 */
import { isDuplicateKeyError } from '@clinic/service-kit/storage';

// String keys, which FerretDB v1 looks up through its primary-key index; the catalogue's indexes created one per
// command, and the embedded server's substring table asked for by an explicit option (IndexSpec.substringSearch,
// patch 0018).
export { docKey, ensureCatalogueIndexes, type IndexSpec } from '@clinic/service-kit/storage';
// A unique violation, reported two ways; a bulk write's per-document errors; fresh ids without an atomic $inc.
export { isDuplicateKeyError, movePastIfTaken, writeErrorsOf } from '@clinic/service-kit/storage';

/**
 * An upsert that another replica may be making at the same moment: FerretDB
 * does not make upserts atomic, so the loser gets a duplicate key error on
 * the document the winner inserted, which is the outcome both wanted.
 */
export async function upsertOnce(upsert: () => Promise<unknown>): Promise<void> {
  try {
    await upsert();
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
}
