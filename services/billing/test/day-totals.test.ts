import { outsideWholeMonths, wholeMonthsOf } from '../src/storage/day-ranges';
import { changesDayTotals, movesDayTotals } from '../src/storage/live-bill-sums';
import type { BillDoc } from '../src/domain/bill';

const bill = {
  store_id: 2,
  bill_date: '2091-01-15',
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
  ['bill_date', '2091-01-16'],
  ['store_id', 3],
])('a change of %s changes the day', (field, value) => {
  expect(changesDayTotals(bill, { ...bill, [field]: value })).toBe(true);
});

it('a new bill always moves its day; a change only when it changes what the day counts', () => {
  expect(movesDayTotals({ doc: bill })).toBe(true);
  expect(movesDayTotals({ doc: { ...bill, notes: 'fasting' } as BillDoc, before: bill })).toBe(false);
  expect(movesDayTotals({ doc: { ...bill, payment_status: 'Paid' } as BillDoc, before: bill })).toBe(true);
});

describe('the whole months of a date range', () => {
  it.each([
    [{}, { first: '0000-01', last: '9999-12' }],
    [{ date: '2091-03-01' }, null],
    [
      { from_date: '2091-03-01', to_date: '2091-03-31' },
      { first: '2091-03', last: '2091-03' },
    ],
    [{ from_date: '2091-03-02', to_date: '2091-03-31' }, null],
    [{ from_date: '2091-03-01', to_date: '2091-03-30' }, null],
    [
      { from_date: '2091-02-01', to_date: '2091-02-28' },
      { first: '2091-02', last: '2091-02' },
    ],
    [{ from_date: '2096-02-01', to_date: '2096-02-28' }, null],
    [
      { from_date: '2096-02-01', to_date: '2096-02-29' },
      { first: '2096-02', last: '2096-02' },
    ],
    [
      { from_date: '2090-11-26', to_date: '2091-11-24' },
      { first: '2090-12', last: '2091-10' },
    ],
    [{ from_date: '2091-12-15' }, { first: '2092-01', last: '9999-12' }],
    [{ to_date: '2091-01-31' }, { first: '0000-01', last: '2091-01' }],
    [{ from_date: '2091-05-10', to_date: '2091-03-01' }, null],
  ])('%j: %j', (range, whole) => {
    expect(wholeMonthsOf(range)).toEqual(whole);
  });

  it('leaves the days before and after them to be read one by one', () => {
    const range = { from_date: '2090-11-26', to_date: '2091-11-24' };
    expect(outsideWholeMonths(range, wholeMonthsOf(range)!)).toEqual([
      { bill_date: { $gte: '2090-11-26', $lt: '2090-12-01' } },
      { bill_date: { $gt: '2091-10-31', $lte: '2091-11-24' } },
    ]);
    const exact = { from_date: '2091-03-01', to_date: '2091-04-30' };
    expect(outsideWholeMonths(exact, wholeMonthsOf(exact)!)).toEqual([]);
    expect(outsideWholeMonths({}, wholeMonthsOf({})!)).toEqual([]);
  });
});
