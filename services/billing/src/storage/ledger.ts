/**
 * bill_ledger, the drawer ledger: an entry for every payment, refund and reversal of the bills
 * (ledger-documents.ts), stored through the outbox with its event, for the
 * drawer's queries: a branch's money of one day, per user, method and kind.
 */
import type { Collection, Db } from 'mongodb';
import type { LedgerKind, PaymentMethod } from '@clinic/contracts';
import type { Cents } from '@clinic/service-kit';
import { BILL_INDEXES } from './indexes';
import { BILL_LEDGER, type DrawerEntryDoc } from './ledger-documents';

/** A branch's money of one day taken or given back by one user, in one method, of one kind. */
export interface DrawerRow {
  collector: number | string;
  method: PaymentMethod;
  kind: LedgerKind;
  amount_cents: Cents;
}

export class DrawerLedger {
  private readonly entries: Collection<DrawerEntryDoc>;

  constructor(db: Db) {
    this.entries = db.collection<DrawerEntryDoc>(BILL_LEDGER);
  }

  /** A branch's money of a day, summed per user, method and kind: one grouped query the index answers. */
  async drawer(branchId: number, day: string): Promise<DrawerRow[]> {
    const rows = await this.entries
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
  givenBack(branchId: number, day: string): Promise<DrawerEntryDoc[]> {
    return this.entries
      .find({ store_id: branchId, day, kind: { $in: ['refund', 'reversal'] } })
      .hint(BILL_INDEXES.ledgerByDay)
      .toArray()
      .then((entries) => entries.sort((a, b) => a.at.getTime() - b.at.getTime() || (a._id < b._id ? -1 : 1)));
  }
}
