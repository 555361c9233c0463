/**
 * Idempotency keys of bookings, across sessions. A key is the caller's, as
 * billing's bill keys are: the first booking request sent with it binds it
 * (its session and body, hashed), and the key sent again with another request
 * is refused on any session. The appointment carries the key too, and answers
 * a retry from its session's one compare-and-set write.
 */
import type { Collection, Db } from 'mongodb';
import { fail, type IdempotencyClaim } from '@clinic/service-kit';
import { isDuplicateKeyError } from './database-quirks';

export const BOOKING_KEYS = 'booking_keys';

interface BookingKeyDoc {
  /** The caller-scoped key (IdempotencyClaim.key). */
  _id: string;
  session_id: number;
  request_hash: string;
  created_at: Date;
}

export class BookingKeys {
  private readonly keys: Collection<BookingKeyDoc>;

  constructor(db: Db) {
    this.keys = db.collection<BookingKeyDoc>(BOOKING_KEYS);
  }

  /**
   * Binds the key to this request before the booking (a retry of the same request passes), or 422 when an earlier
   * request bound it. Bound once, by one insert: two requests with one key racing to two sessions book once.
   */
  async bind(claim: IdempotencyClaim, sessionId: number): Promise<void> {
    try {
      await this.keys.insertOne({
        _id: claim.key,
        session_id: sessionId,
        request_hash: claim.requestHash,
        created_at: new Date(),
      });
      return;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
    const bound = await this.keys.findOne({ _id: claim.key });
    if (bound?.request_hash !== claim.requestHash) throw fail('IDEMPOTENCY_KEY_REUSED');
  }
}
