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

// String keys (fast `_id` lookups), unique violations reported two ways, bulk writes' per-document errors,
// indexes created one per command (the substring table by an explicit option, IndexSpec), fresh ids without an atomic $inc.
export {
  docKey,
  ensureIndexes,
  isDuplicateKeyError,
  movePastIfTaken,
  writeErrorsOf,
  type IndexSpec,
} from '@clinic/service-kit/storage';

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
