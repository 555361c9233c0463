/**
 * The pages of an export: a branch's live bills, date by date from the
 * first, by id within a date, each page starting after the last bill of the
 * one before (a cursor, not a skip, so a page costs its own rows). Only
 * equalities and ranges on indexed fields, which both servers answer from
 * the index (see indexes.ts).
 */
import type { Collection, Filter } from 'mongodb';
import type { ExportCursor, ExportQuery } from '../filters';
import { LIST_PROJECTION, type BillDoc } from './documents';
import { BILL_INDEXES } from './indexes';
import { searchCondition } from './search';

const { items: _items, ...WITH_ITEMS } = LIST_PROJECTION;

const nextDay = (date: string) => new Date(Date.parse(date) + 86_400_000).toISOString().slice(0, 10);

export class BillExport {
  constructor(private readonly bills: Collection<BillDoc>) {}

  /**
   * Up to `maxBills` bills from `cursor` on (with their items when `withItems`),
   * reading at most `maxDays` dates, and the cursor of the next page (null after the last).
   */
  async page(
    query: Pick<ExportQuery, 'filter' | 'cursor'>,
    asOf: Date,
    withItems: boolean,
    maxBills: number,
    maxDays: number,
  ): Promise<{ docs: BillDoc[]; next: ExportCursor | null }> {
    const { filter } = query;
    if (filter.status === 'cancelled') return { docs: [], next: null };
    const search = filter.search ? searchCondition(filter.search) : null;
    const projection = withItems ? WITH_ITEMS : LIST_PROJECTION;
    let { date, after } = query.cursor ?? { date: filter.from_date, after: 0 };
    const docs: BillDoc[] = [];
    for (let days = 0; date <= filter.to_date && days < maxDays && docs.length < maxBills; days++) {
      const condition: Filter<BillDoc> = {
        store_id: filter.store_id,
        is_deleted: false,
        bill_date: date,
        id: { $gt: after },
        created_at: { $lte: asOf },
        ...(filter.payment_method ? { payment_method: filter.payment_method } : {}),
        ...(filter.payment_status ? { payment_status: filter.payment_status } : {}),
        ...search,
      };
      const wanted = maxBills - docs.length;
      const found = await this.bills
        .find(condition, { projection })
        .sort({ id: 1 })
        .limit(wanted)
        .hint(search ? BILL_INDEXES.list : BILL_INDEXES.byDay)
        .toArray();
      docs.push(...found);
      if (found.length === wanted) after = found[found.length - 1]!.id;
      else [date, after] = [nextDay(date), 0];
    }
    return { docs, next: date <= filter.to_date ? { date, after } : null };
  }
}
