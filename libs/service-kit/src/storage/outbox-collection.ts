import { indexRef, type IndexedCollection } from './index-catalogue';

/** The outbox of every service's database, its index and what reads it (docs/indexes.md). */
export const OUTBOX_COLLECTION: IndexedCollection = {
  collection: 'outbox',
  indexes: [{ key: { created_at: 1 }, name: 'outbox_by_age' }],
  queries: [
    { query: 'entries older than the grace period, oldest first, 500 at most', index: indexRef('outbox_by_age') },
    {
      query:
        "an entry fencing a day being closed or a session settled (billing), a doctor's bookings (sessions): `{fences}`",
      index: 'none: the outbox holds only the entries in flight',
    },
  ],
};
