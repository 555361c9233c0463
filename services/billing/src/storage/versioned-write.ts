/**
 * A change of a document that carries a version (a shift, an approval): its
 * event first (the outbox), then a compare-and-set write of the version
 * read. A document changed meanwhile is answered null, its event dropped at
 * once: the caller reads it again and decides anew.
 */
import type { Collection, Filter, UpdateFilter } from 'mongodb';
import { REQUEST_MESSAGES } from '@clinic/contracts';
import { ServiceError } from '@clinic/service-kit';
import { withEventId, type EventSpec, type Outbox } from '@clinic/service-kit/storage';

export interface Versioned {
  _id: string;
  version: number;
  _event_ids: string[];
}

/** A refusal (so that the outbox drops the event at once), caught below. */
class ChangedMeanwhile extends ServiceError {
  constructor() {
    super(409, REQUEST_MESSAGES.recordBusy, 'RECORD_BUSY');
  }
}

export async function writeVersion<Doc extends Versioned>(
  outbox: Outbox,
  collection: Collection<Doc>,
  found: Doc,
  set: Partial<Doc>,
  event: (after: Doc) => EventSpec,
  guard?: () => Promise<void>,
): Promise<Doc | null> {
  const after: Doc = { ...found, ...set, version: found.version + 1 };
  try {
    return await outbox.record(
      { ...event(after), collection: collection.collectionName, key: found._id },
      async (eventId, options) => {
        after._event_ids = withEventId(found._event_ids, eventId);
        const { _id: _key, ...fields } = after;
        const result = await collection.updateOne(
          { _id: found._id, version: found.version } as Filter<Doc>,
          { $set: fields } as UpdateFilter<Doc>,
          options,
        );
        if (result.matchedCount === 0) throw new ChangedMeanwhile();
        return after;
      },
      guard,
    );
  } catch (err) {
    if (err instanceof ChangedMeanwhile) return null;
    throw err;
  }
}
