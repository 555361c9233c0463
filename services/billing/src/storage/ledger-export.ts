/**
 * The pages of a ledger export: a branch's drawer entries (bill_ledger) day
 * by day from the first, by id within a day, each page starting after the
 * last entry of the one before, and the bills they are of (their numbers,
 * and the references and reasons their ledgers keep).
 */
import type { Collection, Db } from 'mongodb';
import type { LedgerExportCursor, LedgerExportQuery } from '../domain/ledger-export-query';
import { docKey } from './database-quirks';
import { BILLS } from './documents';
import type { BillDoc } from '../domain/bill';
import { BILL_INDEXES } from './indexes';
import { BILL_LEDGER } from './ledger-documents';
import type { DrawerEntryDoc } from '../domain/drawer-rows';

export class LedgerExport {
  private readonly entries: Collection<DrawerEntryDoc>;
  private readonly bills: Collection<BillDoc>;

  constructor(db: Db) {
    this.entries = db.collection<DrawerEntryDoc>(BILL_LEDGER);
    this.bills = db.collection<BillDoc>(BILLS);
  }

  /** Up to `max` entries from the cursor on, made by `asOf`, reading at most `maxDays` days; and the next cursor. */
  async page(
    query: LedgerExportQuery,
    asOf: Date,
    max: number,
    maxDays: number,
  ): Promise<{ entries: DrawerEntryDoc[]; next: LedgerExportCursor | null }> {
    let cursor = query.cursor ?? (await this.firstDay(query, { $gte: query.from }));
    const entries: DrawerEntryDoc[] = [];
    for (let days = 0; cursor && days < maxDays && entries.length < max; days++) {
      const wanted = max - entries.length;
      const found = await this.entries
        .find({ store_id: query.store_id, day: cursor.day, _id: { $gt: cursor.after } })
        .sort({ _id: 1 })
        .limit(wanted)
        .hint(BILL_INDEXES.ledgerExport)
        .toArray();
      // Made after the first page was read: left out of every page, as the bills' export leaves new bills out.
      entries.push(...found.filter((entry) => entry.at <= asOf));
      cursor =
        found.length === wanted
          ? { day: cursor.day, after: found[found.length - 1]!._id }
          : await this.firstDay(query, { $gt: cursor.day });
    }
    return { entries, next: cursor };
  }

  /** The bills of these ids, with what a ledger row shows of them. */
  async billsOf(ids: readonly number[]): Promise<Map<number, Pick<BillDoc, 'id' | 'bill_number' | 'ledger'>>> {
    if (ids.length === 0) return new Map();
    const bills = await this.bills
      .find(
        { _id: { $in: [...new Set(ids)].map(docKey) } },
        { projection: { _id: 0, id: 1, bill_number: 1, ledger: 1 } },
      )
      .toArray();
    return new Map(bills.map((bill) => [bill.id, bill]));
  }

  private async firstDay(
    query: LedgerExportQuery,
    start: { $gte: string } | { $gt: string },
  ): Promise<LedgerExportCursor | null> {
    const [first] = await this.entries
      .find({ store_id: query.store_id, day: { ...start, $lte: query.to } }, { projection: { _id: 0, day: 1 } })
      .sort({ day: 1 })
      .limit(1)
      .hint(BILL_INDEXES.ledgerExport)
      .toArray();
    return first ? { day: first.day, after: '' } : null;
  }
}
