/**
 * bill_ledger: a record of every payment, refund and reversal of the bills
 * (ledger-documents.ts), stored through the outbox with its event, for the
 * drawer's queries: a branch's money of one day, per user, method and kind.
 */
import type { Collection, Db } from 'mongodb';
import type { LedgerKind, PaymentMethod } from '@clinic/contracts';
import { ensureIndexes, type Cents } from '@clinic/service-kit';
import { BILL_INDEXES } from './indexes';
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
    await ensureIndexes(this.records, [
      {
        key: { store_id: 1, day: 1, collector: 1, method: 1, kind: 1, amount_cents: 1 },
        name: BILL_INDEXES.ledgerByDay,
      },
    ]);
  }

  /** A branch's money of a day, summed per user, method and kind: one grouped query the index answers. */
  async drawer(storeId: number, day: string): Promise<DrawerRow[]> {
    const rows = await this.records
      .aggregate<{ _id: { c: number | string; m: PaymentMethod; k: LedgerKind }; a: number }>(
        [
          { $match: { store_id: storeId, day } },
          { $group: { _id: { c: '$collector', m: '$method', k: '$kind' }, a: { $sum: '$amount_cents' } } },
        ],
        { hint: BILL_INDEXES.ledgerByDay },
      )
      .toArray();
    return rows.map((row) => ({ collector: row._id.c, method: row._id.m, kind: row._id.k, amount_cents: row.a }));
  }
}
