/** The catalogue's collections, their indexes and the queries each answers (`npm run docs`: docs/indexes.md). */
import { auditTrailIndex, indexRef, type IndexedCollection } from '@clinic/service-kit/storage';
import { CHARGE_HISTORY, CHARGES } from './documents';
import { CHARGE_INDEX_DESCRIPTIONS, CHARGE_INDEXES } from './indexes';

export const CATALOGUE_INDEX_CATALOGUE: IndexedCollection[] = [
  {
    collection: CHARGES,
    indexes: CHARGE_INDEX_DESCRIPTIONS,
    queries: [
      {
        query:
          "a branch's charges: `{store_id, is_deleted:false, status?, charge_type?, search?}` (sorted by name in memory: one branch)",
        index: indexRef(CHARGE_INDEXES.byBranch),
      },
      {
        query: "billable ids of a branch: `{store_id, is_deleted:false, status:'Active'}`",
        index: indexRef(CHARGE_INDEXES.byBranch),
      },
      {
        query: 'a name is unique in a branch among live charges (no query)',
        index: indexRef(CHARGE_INDEXES.nameUnique),
      },
    ],
  },
  {
    collection: CHARGE_HISTORY,
    indexes: [auditTrailIndex(CHARGE_HISTORY)],
    queries: [
      {
        query: "a page of a charge's history, oldest first: `{entity_id}` by `at`, skip, limit, and its count",
        index: indexRef(auditTrailIndex(CHARGE_HISTORY).name),
      },
    ],
  },
];
