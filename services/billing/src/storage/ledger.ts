/**
 * bill_ledger, the drawer ledger: an entry for every payment, refund and reversal of the bills
 * (domain/ledger-entry.ts), stored through the outbox with its event, for the
 * drawer's queries: a branch's money of one day, per user, method and kind.
 */
import type { Collection, Db } from 'mongodb';
import type { PaymentMethod } from '@clinic/contracts';
import { BILL_INDEXES } from './indexes';
import { BILL_LEDGER } from './ledger-documents';
import type { DrawerEntryDoc } from '../domain/drawer-rows';
import type { DrawerKind } from '../domain/drawer';
import type { DrawerRow, ChannelingRow } from '../domain/drawer-rows';

export class DrawerLedger {
  private readonly entries: Collection<DrawerEntryDoc>;

  constructor(db: Db) {
    this.entries = db.collection<DrawerEntryDoc>(BILL_LEDGER);
  }

  /** A branch's money of a day, summed per user, method and kind: one grouped query the index answers. */
  async drawer(branchId: number, day: string): Promise<DrawerRow[]> {
    const rows = await this.entries
      .aggregate<{ _id: { c: number | string; m: PaymentMethod; k: DrawerKind }; a: number }>(
        [
          { $match: { store_id: branchId, day } },
          { $group: { _id: { c: '$collector', m: '$method', k: '$kind' }, a: { $sum: '$amount_cents' } } },
        ],
        { hint: BILL_INDEXES.ledgerByDay },
      )
      .toArray();
    return rows.map((row) => ({ collector: row._id.c, method: row._id.m, kind: row._id.k, amount_cents: row.a }));
  }

  /**
   * A branch's channeling money of a day per kind, in the doctor's and the
   * hospital's parts: a bill's entries have neither, and add nothing.
   */
  async channeling(branchId: number, day: string): Promise<ChannelingRow[]> {
    const rows = await this.entries
      .aggregate<{ _id: DrawerKind; d: number; h: number }>(
        [
          { $match: { store_id: branchId, day } },
          { $group: { _id: '$kind', d: { $sum: '$doctor_cents' }, h: { $sum: '$hospital_cents' } } },
        ],
        { hint: BILL_INDEXES.ledgerByDay },
      )
      .toArray();
    return rows.map((row) => ({ kind: row._id, doctor_cents: row.d, hospital_cents: row.h }));
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
