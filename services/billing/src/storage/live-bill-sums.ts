/**
 * Counts and sums of a branch's live bills, grouped as the summary, the list's
 * counts and the day-end report need them, and which writes of a bill change them.
 */
import type { Collection } from 'mongodb';
import type { PaymentMethod, PaymentStatus } from '@clinic/contracts';
import type { BillGroup } from '../domain/summary-rules';
import type { BillDoc } from '../domain/bill';
import { BILL_INDEXES } from './indexes';

/**
 * Counts and sums of a branch's live bills of some dates, grouped by date
 * (when there are several), by the fields `by` names and by payment method and
 * status: one grouped query, which the by-day index serves. The date of one
 * date is not a group key: the embedded server sorts the rows by every group
 * key, and a key that is the same on every row makes each comparison dearer
 * (a third of a 1,370-bill day's sum went to its sorter).
 */
export async function sumLiveBills(
  bills: Collection<BillDoc>,
  branchId: number,
  billDates: string[],
  by: Record<string, string>,
  /** An index holding every field grouped and summed (the by-day one holds all but billed_by). */
  hint: string = BILL_INDEXES.byDay,
): Promise<Array<{ bill_date: string; key: Record<string, unknown>; group: BillGroup }>> {
  const oneDate = billDates.length === 1 ? billDates[0] : undefined;
  const rows = await bills
    .aggregate<{
      _id: Record<string, unknown> & { d?: string; m: PaymentMethod; s: PaymentStatus };
      n: number;
      g: number;
      x: number;
      t: number;
    }>(
      [
        { $match: { store_id: branchId, is_deleted: false, bill_date: oneDate ?? { $in: billDates } } },
        {
          $group: {
            _id: { ...by, ...(oneDate ? {} : { d: '$bill_date' }), m: '$payment_method', s: '$payment_status' },
            n: { $sum: 1 },
            g: { $sum: '$grand_total_cents' },
            x: { $sum: '$discount_cents' },
            t: { $sum: '$subtotal_cents' },
          },
        },
      ],
      { hint },
    )
    .toArray();
  return rows.map((row) => ({
    bill_date: oneDate ?? (row._id.d as string),
    key: row._id,
    group: {
      payment_method: row._id.m,
      payment_status: row._id.s,
      count: row.n,
      grand_total: row.g,
      discount: row.x,
      subtotal: row.t,
    },
  }));
}

/** What a day's totals count and sum of a bill; a change of anything else leaves them as they are. */
const TOTALS_FIELDS = [
  'store_id',
  'bill_date',
  'is_deleted',
  'payment_method',
  'payment_status',
  'grand_total_cents',
  'discount_cents',
  'subtotal_cents',
] as const satisfies ReadonlyArray<keyof BillDoc>;

/** Whether a change of a bill can change the totals of its day (and so needs a new version token). */
export function changesDayTotals(before: BillDoc, after: BillDoc): boolean {
  return TOTALS_FIELDS.some((field) => before[field] !== after[field]);
}

/** A bill as a write left it, and as the write found it (absent for a new bill). */
export interface WrittenBill {
  doc: BillDoc;
  before?: BillDoc;
}

/** Whether a write of a bill can have changed its day's totals: a new bill always does. */
export function movesDayTotals({ doc, before }: WrittenBill): boolean {
  return before === undefined || changesDayTotals(before, doc);
}
