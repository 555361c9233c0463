/**
 * Idempotency keys of bill creates. A bill created with a key carries it
 * (unique, so a key makes one bill at most, across replicas); a claim
 * document keyed by it answers a repeated request with one read by _id.
 */
import type { Collection, Db } from 'mongodb';
import type { IdempotencyClaim } from '@clinic/service-kit';
import type { BillDoc } from '../domain/bill';
import { BILL_INDEXES } from './indexes';

interface ClaimDoc {
  _id: string;
  bill_id: number;
  request_hash: string;
  created_at: Date;
}

export class IdempotencyClaims {
  private readonly claims: Collection<ClaimDoc>;

  constructor(
    db: Db,
    private readonly bills: Collection<BillDoc>,
  ) {
    this.claims = db.collection<ClaimDoc>('idempotency_keys');
  }

  find(key: string): Promise<ClaimDoc | null> {
    return this.claims.findOne({ _id: key });
  }

  /** Remembers which bill a key created, for fast replays (the bill's unique key is the authority). */
  async save(claim: IdempotencyClaim, billId: number): Promise<void> {
    await this.claims
      .insertOne({ _id: claim.key, bill_id: billId, request_hash: claim.requestHash, created_at: new Date() })
      .catch(() => undefined);
  }

  /** The bill an earlier request with this key created, found by the bill's own unique key. */
  billOf(claim: IdempotencyClaim): Promise<BillDoc | null> {
    return this.bills.findOne({ idempotency_key: claim.key }, { hint: BILL_INDEXES.idempotencyKey });
  }
}
