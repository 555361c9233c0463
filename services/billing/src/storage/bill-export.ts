/**
 * The pages of an export: a branch's live bills (and its cancelled ones on
 * request), date by date from the first, by id within a date, each page starting after the last bill of the
 * one before (a cursor, not a skip, so a page costs its own rows). Only
 * equalities and ranges on indexed fields, which both servers answer from
 * the index (see indexes.ts).
 */
import type { Collection, Filter } from 'mongodb';
import type { ExportCursor, ExportQuery } from '../domain/filters';
import { LIST_PROJECTION } from './documents';
import type { BillDoc } from '../domain/bill';
import { BILL_INDEXES } from './indexes';
import { searchCondition } from './search';

const { items: _items, ...WITH_ITEMS } = LIST_PROJECTION;

export class BillExport {
  constructor(private readonly bills: Collection<BillDoc>) {}

  /**
   * Up to `maxBills` bills from `cursor` on (with their items when `withItems`),
   * reading at most `maxDays` dates, and the cursor of the next page (null after the last).
   * Dates without a bill are skipped in one read, so a range of centuries costs its bills' dates only.
   */
  async page(
    query: Pick<ExportQuery, 'filter' | 'cursor' | 'includeCancelled'>,
    asOf: Date,
    withItems: boolean,
    maxBills: number,
    maxDays: number,
  ): Promise<{ docs: BillDoc[]; next: ExportCursor | null }> {
    const { filter } = query;
    const deleted = deletedCondition(filter.status, query.includeCancelled);
    if (deleted === null) return { docs: [], next: null };
    const search = filter.search ? searchCondition(filter.search) : null;
    const projection = withItems ? WITH_ITEMS : LIST_PROJECTION;
    let cursor: ExportCursor | null =
      query.cursor ?? (await this.firstDate(filter, deleted, { $gte: filter.from_date }, asOf));
    const docs: BillDoc[] = [];
    for (let days = 0; cursor && days < maxDays && docs.length < maxBills; days++) {
      const condition: Filter<BillDoc> = {
        store_id: filter.store_id,
        is_deleted: deleted,
        bill_date: cursor.date,
        id: { $gt: cursor.after },
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
      cursor =
        found.length === wanted
          ? { date: cursor.date, after: found[found.length - 1]!.id }
          : await this.firstDate(filter, deleted, { $gt: cursor.date }, asOf);
    }
    return { docs, next: cursor };
  }

  /** The first date within `start` and the range's end with a live bill of the branch, as a cursor; null when none. */
  private async firstDate(
    filter: ExportQuery['filter'],
    deleted: Deleted,
    start: { $gte: string } | { $gt: string },
    asOf: Date,
  ): Promise<ExportCursor | null> {
    const [first] = await this.bills
      .find(
        {
          store_id: filter.store_id,
          is_deleted: deleted,
          bill_date: { ...start, $lte: filter.to_date },
          created_at: { $lte: asOf },
        },
        { projection: { _id: 0, bill_date: 1 } },
      )
      .sort({ bill_date: 1 })
      .limit(1)
      .hint(BILL_INDEXES.byDay)
      .toArray();
    return first ? { date: first.bill_date, after: 0 } : null;
  }
}

type Deleted = boolean | { $in: boolean[] };

/** Which bills a page reads: live ones, unless cancelled ones were asked for; null when the filter leaves none. */
function deletedCondition(status: ExportQuery['filter']['status'], includeCancelled: boolean): Deleted | null {
  if (!includeCancelled) return status === 'cancelled' ? null : false;
  if (status) return status === 'cancelled';
  return { $in: [false, true] };
}
