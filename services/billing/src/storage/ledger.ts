/**
 * bill_ledger: a record of every payment, refund and reversal of the bills
 * (ledger-documents.ts), stored through the outbox with its event, for the
 * drawer's queries: a branch's money of one day, per user, method and kind.
 */
import type { Collection, Db } from 'mongodb';
import type { LedgerKind, PaymentMethod } from '@clinic/contracts';
import type { Cents } from '@clinic/service-kit';
import { ensureIndexes } from './database-quirks';
import { BILL_INDEXES, LEDGER_INDEX_DESCRIPTIONS } from './indexes';
import { BILL_LEDGER, type LedgerRecordDoc } from './ledger-documents';

/** A branch's money of one day taken or given back by one user, in one method, of one kind. */
export interface DrawerRow {
  collector: number | string;
  method: PaymentMethod;
  kind: LedgerKind;
  amount_cents: Cents;
}

export class LedgerRecords {
  private readonly records: Collection<LedgerRecordDoc>;

  constructor(db: Db) {
    this.records = db.collection<LedgerRecordDoc>(BILL_LEDGER);
  }

  async ensureIndexes(): Promise<void> {
    await ensureIndexes(this.records, LEDGER_INDEX_DESCRIPTIONS);
  }

  /** A branch's money of a day, summed per user, method and kind: one grouped query the index answers. */
  async drawer(branchId: number, day: string): Promise<DrawerRow[]> {
    const rows = await this.records
      .aggregate<{ _id: { c: number | string; m: PaymentMethod; k: LedgerKind }; a: number }>(
        [
          { $match: { store_id: branchId, day } },
          { $group: { _id: { c: '$collector', m: '$method', k: '$kind' }, a: { $sum: '$amount_cents' } } },
        ],
        { hint: BILL_INDEXES.ledgerByDay },
      )
      .toArray();
    return rows.map((row) => ({ collector: row._id.c, method: row._id.m, kind: row._id.k, amount_cents: row.a }));
  }

  /** A branch's refunds and reversals of a day, in the order they were made (the printed day-end lists them). */
  givenBack(branchId: number, day: string): Promise<LedgerRecordDoc[]> {
    return this.records
      .find({ store_id: branchId, day, kind: { $in: ['refund', 'reversal'] } })
      .hint(BILL_INDEXES.ledgerByDay)
      .toArray()
      .then((records) => records.sort((a, b) => a.at.getTime() - b.at.getTime() || (a._id < b._id ? -1 : 1)));
  }
}
