import { changesDayTotals, outsideWholeMonths, wholeMonthsOf } from '../src/storage/day-totals';
import type { BillDoc } from '../src/storage/documents';

const bill = {
  store_id: 2,
  bill_date: '2026-01-15',
  is_deleted: false,
  payment_method: 'Cash',
  payment_status: 'Pending',
  grand_total_cents: 24100,
  discount_cents: 0,
  subtotal_cents: 24100,
  notes: null,
  received_cents: null,
} as unknown as BillDoc;

it('a change of what the totals do not count leaves the day as it is', () => {
  expect(changesDayTotals(bill, { ...bill, notes: 'fasting', received_cents: 30000, updated_at: new Date() })).toBe(
    false,
  );
  expect(changesDayTotals(bill, { ...bill })).toBe(false);
});

it.each([
  ['payment_status', 'Paid'],
  ['payment_method', 'Card'],
  ['is_deleted', true],
  ['grand_total_cents', 24000],
  ['discount_cents', 100],
  ['subtotal_cents', 24000],
  ['bill_date', '2026-01-16'],
  ['store_id', 3],
])('a change of %s changes the day', (field, value) => {
  expect(changesDayTotals(bill, { ...bill, [field]: value })).toBe(true);
});

describe('the whole months of a date range', () => {
  it.each([
    [{}, { first: '0000-01', last: '9999-12' }],
    [{ date: '2026-03-01' }, null],
    [
      { from_date: '2026-03-01', to_date: '2026-03-31' },
      { first: '2026-03', last: '2026-03' },
    ],
    [{ from_date: '2026-03-02', to_date: '2026-03-31' }, null],
    [{ from_date: '2026-03-01', to_date: '2026-03-30' }, null],
    [
      { from_date: '2026-02-01', to_date: '2026-02-28' },
      { first: '2026-02', last: '2026-02' },
    ],
    [{ from_date: '2028-02-01', to_date: '2028-02-28' }, null],
    [
      { from_date: '2028-02-01', to_date: '2028-02-29' },
      { first: '2028-02', last: '2028-02' },
    ],
    [
      { from_date: '2025-11-26', to_date: '2026-11-24' },
      { first: '2025-12', last: '2026-10' },
    ],
    [{ from_date: '2026-12-15' }, { first: '2027-01', last: '9999-12' }],
    [{ to_date: '2026-01-31' }, { first: '0000-01', last: '2026-01' }],
    [{ from_date: '2026-05-10', to_date: '2026-03-01' }, null],
  ])('%j: %j', (range, whole) => {
    expect(wholeMonthsOf(range)).toEqual(whole);
  });

  it('leaves the days before and after them to be read one by one', () => {
    const range = { from_date: '2025-11-26', to_date: '2026-11-24' };
    expect(outsideWholeMonths(range, wholeMonthsOf(range)!)).toEqual([
      { bill_date: { $gte: '2025-11-26', $lt: '2025-12-01' } },
      { bill_date: { $gt: '2026-10-31', $lte: '2026-11-24' } },
    ]);
    const exact = { from_date: '2026-03-01', to_date: '2026-04-30' };
    expect(outsideWholeMonths(exact, wholeMonthsOf(exact)!)).toEqual([]);
    expect(outsideWholeMonths({}, wholeMonthsOf({})!)).toEqual([]);
  });
});
