/** The charges' indexes; index-catalogue.ts says which query reads each (docs/indexes.md). */
import type { IndexDescription } from 'mongodb';

export const CHARGE_INDEXES = {
  /** A name is unique in a branch among live charges (see ChargeDoc.live_key). */
  nameUnique: 'charge_name_unique_per_store',
  /** A branch's charges, and its billable ones. */
  byBranch: 'charges_by_store',
} as const;

export const CHARGE_INDEX_DESCRIPTIONS: IndexDescription[] = [
  { key: { store_id: 1, name_key: 1, live_key: 1 }, name: CHARGE_INDEXES.nameUnique, unique: true },
  { key: { store_id: 1, is_deleted: 1, status: 1 }, name: CHARGE_INDEXES.byBranch },
];
