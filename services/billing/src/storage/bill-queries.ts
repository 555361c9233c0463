/** Reads of bills: one bill, a page of a branch's list, the revenue summary. */
import type { Collection, Filter } from 'mongodb';
import type { Cents, Page } from '@clinic/service-kit';
import { BatchedFinds, type Share, type VersionedCache } from '@clinic/service-kit/storage';
import { docKey } from './database-quirks';
import type { BillFilter, DateRange } from '../domain/filters';
import type { DayTotals } from './day-totals';
import { summarize, type CashierGroup, type Summary } from '../domain/summary-rules';
import { sumLiveBills } from './live-bill-sums';
import { LIST_PROJECTION } from './documents';
import type { BillDoc, CancelledBill } from '../domain/bill';
import { BILL_INDEXES, dateCondition, listDateCondition, listIndexFor } from './indexes';
import { searchCondition } from './search';

/** A live bill (null: none) with the versions a reply of it depends on (null: unproved). */
export interface StampedBill {
  doc: BillDoc | null;
  stamps: string[] | null;
}

/** The cache scope of one branch's bills: every write to the branch changes it. */
export const branchScope = (branchId: number) => `bills:store:${branchId}`;

const NEWEST_FIRST = { created_at: -1, id: -1 } as const;

export class BillQueries {
  private readonly live: BatchedFinds<BillDoc>;

  constructor(
    private readonly bills: Collection<BillDoc>,
    private readonly dayTotals: DayTotals,
    private readonly cache: VersionedCache,
  ) {
    this.live = new BatchedFinds(bills, { is_deleted: false });
  }

  /** A bill that exists and is not cancelled (with those other requests look for at the same time). */
  findLive(id: number): Promise<BillDoc | null> {
    return this.live.find(docKey(id));
  }

  /**
   * A live bill, and the versions a reply of it depends on (HandlerContext.share; null: unproved): its branch's and
   * `dependsOn`'s, read before it. Known beforehand when the caller reaches one branch; else read between two reads.
   */
  async findLiveStamped(id: number, onlyBranch: number | null, dependsOn: string[]): Promise<StampedBill> {
    const branch = onlyBranch ?? (await this.findLive(id))?.store_id;
    if (branch === undefined) return { doc: null, stamps: null };
    const stamps = await this.cache.stamps([branchScope(branch), ...dependsOn]);
    const doc = await this.findLive(id);
    return { doc, stamps: doc?.store_id === branch ? stamps : null };
  }

  findById(id: number): Promise<BillDoc | null> {
    return this.bills.findOne({ _id: docKey(id) });
  }

  /**
   * A page of a branch's live bills passed through `present`, kept until the
   * next write to the branch (or to what `dependsOn` names).
   */
  cachedPage<T>(
    filter: BillFilter,
    page: Page,
    present: (docs: BillDoc[], total: number) => Promise<T>,
    dependsOn: string[] = [],
    share?: Share,
  ): Promise<T> {
    const load = async () => {
      const { docs, total } = await this.page(filter, page);
      return present(docs, total);
    };
    return this.cache.get(
      [branchScope(filter.store_id), ...dependsOn],
      `page:${JSON.stringify([filter, page])}`,
      load,
      share,
    );
  }

  /**
   * A page of a branch's live bills, newest first, and how many match. The
   * count comes from the per-day totals, unless a search asks for a count of
   * its own. A cancelled bill is never shown, so `status=cancelled` matches nothing.
   */
  async page(filter: BillFilter, page: Page): Promise<{ docs: BillDoc[]; total: number }> {
    if (filter.status === 'cancelled') return { docs: [], total: 0 };
    const search = filter.search ? searchCondition(filter.search) : null;
    const query: Filter<BillDoc> = {
      store_id: filter.store_id,
      is_deleted: false,
      ...(search ? dateCondition(filter) : listDateCondition(filter)),
    };
    if (filter.payment_method) query.payment_method = filter.payment_method;
    if (filter.payment_status) query.payment_status = filter.payment_status;
    if (filter.patient_id !== undefined) query.patient_id = filter.patient_id;
    if (filter.billed_by !== undefined) query.billed_by = filter.billed_by;
    if (search) Object.assign(query, search);
    // The per-day totals count a branch's bills by date, method and status only.
    const ownCount = search !== null || filter.patient_id !== undefined || filter.billed_by !== undefined;
    const cursor = this.bills
      .find(query, { projection: LIST_PROJECTION })
      .sort(NEWEST_FIRST)
      .skip((page.page - 1) * page.per_page)
      .limit(page.per_page);
    // A search on the embedded server reads its trigram table, on MongoDB the list index's search_text.
    cursor.hint(search ? BILL_INDEXES.list : listIndexFor(filter));
    const [docs, total] = await Promise.all([
      cursor.toArray(),
      ownCount
        ? this.bills.countDocuments(query, { hint: search ? BILL_INDEXES.list : listIndexFor(filter) })
        : this.dayTotals
            .groups(filter.store_id, filter)
            .then((groups) =>
              groups
                .filter(
                  (g) =>
                    (!filter.payment_method || g.payment_method === filter.payment_method) &&
                    (!filter.payment_status || g.payment_status === filter.payment_status),
                )
                .reduce((sum, g) => sum + g.count, 0),
            ),
    ]);
    return { docs, total };
  }

  /** Counts and sums over a branch's live bills, kept per branch until the next write to it. */
  summary(range: { store_id: number } & DateRange, share?: Share): Promise<Summary> {
    const load = async () => summarize(await this.dayTotals.groups(range.store_id, range));
    return this.cache.get(branchScope(range.store_id), `summary:${JSON.stringify(range)}`, load, share);
  }

  /** Counts and sums of a branch's live bills of one date, per cashier, payment method and status (the day-end report). */
  async cashierGroups(branchId: number, billDate: string): Promise<CashierGroup[]> {
    const rows = await sumLiveBills(this.bills, branchId, [billDate], { b: '$billed_by' }, BILL_INDEXES.dayEnd);
    return rows.map(({ key, group }) => ({ ...group, billed_by: (key.b as number | null | undefined) ?? null }));
  }

  /** A branch's live Pending bills of one date: how many, and what they still owe (grand total less paid). */
  async owedOn(branchId: number, billDate: string): Promise<{ bill_count: number; due: Cents }> {
    const [row] = await this.bills
      .aggregate<{ n: number; g: number; p: number | null }>(
        [
          { $match: { store_id: branchId, is_deleted: false, bill_date: billDate, payment_status: 'Pending' } },
          {
            $group: {
              _id: '$payment_status',
              n: { $sum: 1 },
              g: { $sum: '$grand_total_cents' },
              p: { $sum: '$paid_cents' },
            },
          },
        ],
        { hint: BILL_INDEXES.dayEnd },
      )
      .toArray();
    // Bills stored before the ledger hold no paid_cents: a Pending one was paid nothing.
    return { bill_count: row?.n ?? 0, due: (row?.g ?? 0) - (row?.p ?? 0) };
  }

  /** A branch's cancelled bills of one date. */
  cancelledOn(branchId: number, billDate: string): Promise<CancelledBill[]> {
    return this.bills
      .find(
        { store_id: branchId, is_deleted: true, bill_date: billDate },
        { projection: { _id: 0, id: 1, bill_number: 1, grand_total_cents: 1, billed_by: 1, updated_at: 1 } },
      )
      .sort(NEWEST_FIRST)
      .hint(BILL_INDEXES.byDay)
      .toArray() as Promise<CancelledBill[]>;
  }

  /** The highest sequence number of a bill date (numbering recovery). */
  async highestSeq(billDate: string): Promise<number> {
    const [top] = await this.bills
      .find({ bill_date: billDate }, { projection: { bill_seq: 1 } })
      .sort({ bill_seq: -1 })
      .limit(1)
      .hint(BILL_INDEXES.dateSeq)
      .toArray();
    return top?.bill_seq ?? 0;
  }
}
