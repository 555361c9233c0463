/** What a scale run checks of the data besides timing it: bill numbers gap-free, summaries exact to the cent. */
import { MongoClient } from 'mongodb';
import { type BillLoader, MEASURED_BRANCH } from './dataset';
import { api, type Target } from './target';

const B = String(MEASURED_BRANCH);

/** A date whose numbers are not 1..n: the numbers missing and the numbers stored twice (at most 20 of each). */
export interface NumberProblem {
  date: string;
  bills: number;
  highest: number;
  missing: number[];
  repeated: number[];
}

/**
 * Every bill number unique (a unique index holds them) and each date's numbers
 * 1..n without a gap; a date that is not is read whole, to say which numbers.
 */
export async function checkNumbers(
  target: Target,
): Promise<{ bills: number; dates: number; gaps: number; ok: boolean; problems: NumberProblem[] }> {
  const client = await MongoClient.connect(target.mongoUrl!);
  try {
    const bills = client.db('clinic_billing').collection('bills');
    const perDate = await bills
      .aggregate<{ _id: string; n: number }>([{ $group: { _id: '$bill_date', n: { $sum: 1 } } }], {
        hint: 'bills_by_date_seq',
      })
      .toArray();
    let gaps = 0;
    const problems: NumberProblem[] = [];
    for (const { _id: date, n } of perDate) {
      const [top] = await bills
        .find({ bill_date: date }, { projection: { bill_seq: 1 } })
        .sort({ bill_seq: -1 })
        .limit(1)
        .hint('bills_by_date_seq')
        .toArray();
      const highest = top?.bill_seq ?? 0;
      gaps += highest - n;
      if (highest === n) continue;
      const seqs = (
        await bills
          .find({ bill_date: date }, { projection: { bill_seq: 1 } })
          .hint('bills_by_date_seq')
          .toArray()
      ).map((bill) => bill.bill_seq as number);
      const seen = new Set<number>();
      const repeated = seqs.filter((seq) => seen.has(seq) || !seen.add(seq));
      const missing = Array.from({ length: highest }, (_, i) => i + 1).filter((seq) => !seen.has(seq));
      problems.push({ date, bills: n, highest, missing: missing.slice(0, 20), repeated: repeated.slice(0, 20) });
    }
    const total = perDate.reduce((sum, d) => sum + d.n, 0);
    return { bills: total, dates: perDate.length, gaps, ok: problems.length === 0, problems };
  } finally {
    await client.close();
  }
}

/**
 * The summary the API answers for a day, a month and the whole measured branch,
 * against sums of the stored bills computed here in integer cents: exact, or not.
 */
export async function checkSummaries(
  target: Target,
  loader: BillLoader,
): Promise<{ checked: number; mismatches: string[]; ok: boolean }> {
  const client = await MongoClient.connect(target.mongoUrl!);
  const mismatches: string[] = [];
  const ranges: Array<Record<string, string>> = [
    { date: loader.dates[100]! },
    { from_date: loader.dates[150]!, to_date: loader.dates[180]! },
    {},
  ];
  try {
    const bills = client.db('clinic_billing').collection('bills');
    for (const range of ranges) {
      const dates = range.date
        ? { bill_date: range.date }
        : range.from_date
          ? { bill_date: { $gte: range.from_date, $lte: range.to_date } }
          : {};
      const expected = { total_bills: 0, total_revenue: 0, total_discounts: 0, total_subtotal: 0 };
      const cursor = bills.find(
        { store_id: MEASURED_BRANCH, is_deleted: false, ...dates },
        { projection: { grand_total_cents: 1, discount_cents: 1, subtotal_cents: 1 } },
      );
      for await (const bill of cursor) {
        expected.total_bills++;
        expected.total_revenue += bill.grand_total_cents;
        expected.total_discounts += bill.discount_cents;
        expected.total_subtotal += bill.subtotal_cents;
      }
      const answered = (
        await api(target, 'GET', `/lab_bills/summary?${new URLSearchParams({ store_id: B, ...range })}`)
      ).summary;
      const inCents = (amount: number) => Math.round(amount * 100);
      const got = {
        total_bills: answered.total_bills,
        total_revenue: inCents(answered.total_revenue),
        total_discounts: inCents(answered.total_discounts),
        total_subtotal: inCents(answered.total_subtotal),
      };
      if (JSON.stringify(got) !== JSON.stringify(expected))
        mismatches.push(
          `${JSON.stringify(range)}: answered ${JSON.stringify(got)}, stored ${JSON.stringify(expected)}`,
        );
    }
  } finally {
    await client.close();
  }
  return { checked: ranges.length, mismatches, ok: mismatches.length === 0 };
}
