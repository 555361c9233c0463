import { changesDayTotals } from '../src/storage/day-totals';
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
