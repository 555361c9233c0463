import { cashHandedOver, receiptStatus, tenders, type BillFigures, type LedgerLine } from '../src/domain/receipt-facts';

const line = (kind: LedgerLine['kind'], method: LedgerLine['method'], amount: number, cash?: [number, number]) => ({
  kind,
  method,
  amount_cents: amount,
  received_cents: cash ? cash[0] : null,
  change_cents: cash ? cash[1] : null,
});

function bill(ledger: LedgerLine[], overrides: Partial<BillFigures> = {}): BillFigures {
  const paid = ledger.reduce(
    (s, l) => s + (l.kind === 'payment' ? l.amount_cents : l.kind === 'reversal' ? -l.amount_cents : 0),
    0,
  );
  const refunded = ledger.filter((l) => l.kind === 'refund').reduce((s, l) => s + l.amount_cents, 0);
  return {
    payment_method: 'Cash',
    payment_status: 'Paid',
    received_cents: null,
    balance_cents: null,
    money: { paid, refunded, ledger },
    ...overrides,
  };
}

describe('a receipt’s status', () => {
  it('is the bill’s until money went back, then Refunded or Partly refunded', () => {
    expect(receiptStatus(bill([line('payment', 'Cash', 1000)]))).toBe('Paid');
    expect(receiptStatus(bill([], { payment_status: 'Pending' }))).toBe('Pending');
    expect(receiptStatus(bill([line('payment', 'Cash', 1000), line('refund', 'Cash', 400)]))).toBe('Partly refunded');
    expect(receiptStatus(bill([line('payment', 'Cash', 1000), line('refund', 'Card', 1000)]))).toBe('Refunded');
  });
});

describe('tenders', () => {
  it('lists what each method took, payments less reversals, in the order first used; refunds apart', () => {
    const split = bill([
      line('payment', 'Cash', 77_000),
      line('payment', 'Card', 143_000),
      line('refund', 'Cash', 10_000),
      line('payment', 'Online', 500),
      line('reversal', 'Online', 500),
    ]);
    expect(tenders(split)).toEqual([
      { method: 'Cash', amount: 77_000 },
      { method: 'Card', amount: 143_000 },
    ]);
  });

  it('names the bill’s method for money paid before the ledger existed, and nothing for an unpaid bill', () => {
    expect(tenders(bill([], { payment_method: 'Card', money: { paid: 5000, refunded: 0, ledger: [] } }))).toEqual([
      { method: 'Card', amount: 5000 },
    ]);
    expect(tenders(bill([], { payment_status: 'Pending' }))).toEqual([]);
  });
});

describe('cash handed over', () => {
  it('is the ledger’s, not a received_amount/balance_amount a PUT set that disagrees with it', () => {
    // The bill: 1,200 paid exactly in cash, then PUT received 1,500 and balance 300.
    const paidExactly = bill([line('payment', 'Cash', 120_000)], { received_cents: 150_000, balance_cents: 30_000 });
    expect(cashHandedOver(paidExactly)).toEqual({ received: 120_000, balance: 0 });
  });

  it('agrees with the bill’s words where they are true, over several cash payments', () => {
    const twice = bill([line('payment', 'Cash', 100_000, [150_000, 50_000]), line('payment', 'Cash', 20_000)], {
      received_cents: 170_000,
      balance_cents: 50_000,
    });
    expect(cashHandedOver(twice)).toEqual({ received: 170_000, balance: 50_000 });
  });

  it('is nothing when no cash was taken, and the bill’s own words for cash paid before the ledger', () => {
    expect(
      cashHandedOver(bill([line('payment', 'Card', 5000)], { received_cents: 9000, balance_cents: 4000 })),
    ).toBeNull();
    expect(cashHandedOver(bill([], { payment_status: 'Pending', received_cents: 9000, balance_cents: 0 }))).toBeNull();
    const legacy = bill([], {
      received_cents: 6000,
      balance_cents: 1000,
      money: { paid: 5000, refunded: 0, ledger: [] },
    });
    expect(cashHandedOver(legacy)).toEqual({ received: 6000, balance: 1000 });
  });
});
