import { billChecks, covers, NO_CONTROLS, refundChecks, type Approval, assertUsable } from '../src/domain/approvals';
import { parseApprovalRequest, parseDecision } from '../src/domain/approval-input';

const bill = {
  bill_date: '2090-01-02',
  payment_method: 'Cash' as const,
  payment_status: 'Paid' as const,
  discount_type: 'pct' as const,
  discount_value: 50,
  received_cents: 10_000,
  items: [
    { charge_id: 3, unit_price_cents: 100 },
    { charge_id: 3, unit_price_cents: 100 },
    { charge_id: 4, unit_price_cents: 85_000 },
  ],
};
const totals = { subtotal: 85_200, discount: 42_600, grand_total: 42_600 };
const catalogue = new Map([
  [3, 110_000],
  [4, 85_000],
]);
const all = { priceOverride: true, discountAbovePct: 20, billDate: true, refundTender: true, receivedShort: true };

describe('the controls a clinic switches on', () => {
  it('find nothing while they are off, whatever the bill', () => {
    expect(billChecks(bill, totals, catalogue, '2090-01-01', NO_CONTROLS)).toEqual([]);
    expect(refundChecks({ owner: 'bill 1', method: 'Cash' }, ['Card'], NO_CONTROLS)).toEqual([]);
  });

  it('name each thing they refuse, as the API writes amounts', () => {
    expect(billChecks(bill, totals, catalogue, '2090-01-01', all)).toEqual([
      { rule: 'price_override', details: { charge_id: 3, catalogue_price: 1100, unit_price: 1 } },
      {
        rule: 'discount_above_pct',
        details: { discount_type: 'pct', discount_value: 50, discount_amount: 426, subtotal: 852, limit_pct: 20 },
      },
      { rule: 'bill_date', details: { bill_date: '2090-01-02', today: '2090-01-01' } },
      { rule: 'received_short', details: { grand_total: 426, received_amount: 100 } },
    ]);
  });

  it("let a discount at the limit, the clinic's today and cash that covers the bill through", () => {
    const fine = { ...bill, items: [{ charge_id: 4, unit_price_cents: 85_000 }], received_cents: 42_600 };
    const atLimit = { subtotal: 85_000, discount: 17_000, grand_total: 68_000 };
    expect(billChecks({ ...fine, received_cents: 68_000 }, atLimit, catalogue, '2090-01-02', all)).toEqual([]);
  });

  it('refuse a refund in a tender the money is not held in', () => {
    expect(refundChecks({ owner: 'bill 1', method: 'Cash' }, ['Card'], all)).toEqual([
      { rule: 'refund_tender', details: { refund_of: 'bill 1', method: 'Cash', paid_in: ['Card'] } },
    ]);
    expect(refundChecks({ owner: 'bill 1', method: 'Card' }, ['Card', 'Cash'], all)).toEqual([]);
  });
});

describe('an approval covers what it lists, once approved, in its branch', () => {
  const checks = [{ rule: 'bill_date' as const, details: { today: '2090-01-01', bill_date: '2090-01-02' } }];
  const approval = (status: Approval['status']): Approval => ({
    id: 5,
    store_id: 1,
    day: '2090-01-01',
    status,
    checks,
    reason: 'Late entry',
    requested_by: { sub: 7, role: 'cashier', user_id: 7 },
    requested_at: new Date(0),
    decided_by: null,
    decided_at: null,
    note: null,
    used: null,
  });

  it('compares details whole, whatever the order of their keys', () => {
    expect(covers(checks, [{ rule: 'bill_date', details: { bill_date: '2090-01-02', today: '2090-01-01' } }])).toBe(
      true,
    );
    expect(covers(checks, [{ rule: 'bill_date', details: { bill_date: '2090-01-03', today: '2090-01-01' } }])).toBe(
      false,
    );
  });

  it('is refused when not approved, used, of another branch or covering something else', () => {
    expect(() => assertUsable(approval('approved'), 1, checks)).not.toThrow();
    expect(() => assertUsable(approval('requested'), 1, checks)).toThrow('Approval 5 is requested: it cannot be used.');
    expect(() => assertUsable(approval('used'), 1, checks)).toThrow('Approval 5 is used: it cannot be used.');
    expect(() => assertUsable(approval('approved'), 2, checks)).toThrow('Approval 5 does not cover this request');
  });

  it('reads a request for approval and a decision', () => {
    expect(parseApprovalRequest({ store_id: 1, checks, reason: ' Late ' })).toEqual({
      store_id: 1,
      checks,
      reason: 'Late',
    });
    expect(() => parseApprovalRequest({ store_id: 1, checks: [], reason: 'x' })).toThrow(
      'checks must list at least one check.',
    );
    expect(() => parseApprovalRequest({ store_id: 1, checks: [{ rule: 'other', details: {} }], reason: 'x' })).toThrow(
      'checks[0].rule must be one of',
    );
    expect(parseDecision(undefined, false)).toBeNull();
    expect(() => parseDecision({}, true)).toThrow('note is required');
  });
});
