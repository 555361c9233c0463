import { heldByMethod, entriesOnUpdate, type Mover } from '../src/domain/money-rules';
import type { BillDoc } from '../src/domain/bill';
import type { LedgerEntryDoc } from '../src/domain/ledger-entry';

const mover = (): Mover => {
  let n = 0;
  return {
    by: { sub: 7, role: 'cashier' },
    day: '2090-05-05',
    at: new Date(0),
    newId: () => `e${++n}`,
    drawer: { user: 7, shift_id: null },
  };
};

/** A ledger entry of `cents` in `method`. */
const moved = (kind: LedgerEntryDoc['kind'], method: LedgerEntryDoc['method'], amount_cents: number) =>
  ({ kind, method, amount_cents }) as LedgerEntryDoc;

/** A bill of 1700 with these entries (none: a bill stored before the ledger). */
function bill(
  payment_status: BillDoc['payment_status'],
  payment_method: BillDoc['payment_method'],
  ledger?: LedgerEntryDoc[],
): BillDoc {
  const sum = (kinds: string[]) =>
    (ledger ?? [])
      .filter((e) => kinds.includes(e.kind))
      .reduce((s, e) => s + (e.kind === 'reversal' ? -1 : 1) * e.amount_cents, 0);
  return {
    grand_total_cents: 170_000,
    payment_status,
    payment_method,
    received_cents: null,
    ...(ledger ? { ledger, paid_cents: sum(['payment', 'reversal']), refunded_cents: sum(['refund']) } : {}),
  } as BillDoc;
}

const shape = (entries: LedgerEntryDoc[]) => entries.map((e) => [e.kind, e.method, e.amount_cents]);

describe('heldByMethod: what a bill holds, by method', () => {
  it('a bill paid before the ledger existed holds its total in its method', () => {
    expect(heldByMethod(bill('Paid', 'Card'))).toEqual([['Card', 170_000]]);
    expect(heldByMethod(bill('Pending', 'Card'))).toEqual([]);
  });

  it('each method what it took less what went back in it, most first', () => {
    const doc = bill('Paid', 'Cash', [
      moved('payment', 'Cash', 100_000),
      moved('payment', 'Card', 70_000),
      moved('refund', 'Card', 20_000),
    ]);
    expect(heldByMethod(doc)).toEqual([
      ['Cash', 100_000],
      ['Card', 50_000],
    ]);
  });

  it('a refund given in another method than the payment comes off the whole, from the methods that hold most', () => {
    const doc = bill('Paid', 'Card', [moved('payment', 'Card', 170_000), moved('refund', 'Cash', 30_000)]);
    expect(heldByMethod(doc)).toEqual([['Card', 140_000]]);
  });

  it('nothing once everything went back', () => {
    const doc = bill('Pending', 'Cash', [moved('payment', 'Cash', 50_000), moved('reversal', 'Cash', 50_000)]);
    expect(heldByMethod(doc)).toEqual([]);
  });
});

describe('entriesOnUpdate: what the spec’s PUT records', () => {
  it('Pending to Paid: a payment of what is due, in the method after the PUT, with the cash handed over', () => {
    const doc = bill('Pending', 'Card', [moved('payment', 'Card', 70_000)]);
    const entries = entriesOnUpdate(
      doc,
      { payment_status: 'Paid', payment_method: 'Cash', received_cents: 200_000 },
      mover(),
    );
    expect(entries).toEqual([
      expect.objectContaining({
        kind: 'payment',
        method: 'Cash',
        amount_cents: 100_000,
        received_cents: 200_000,
        change_cents: 100_000,
        day: '2090-05-05',
        by: { sub: 7, role: 'cashier' },
      }),
    ]);
  });

  it('Paid to Pending: the reversal of what the bill holds, one per method', () => {
    const doc = bill('Paid', 'Cash', [moved('payment', 'Cash', 100_000), moved('payment', 'Online', 70_000)]);
    expect(shape(entriesOnUpdate(doc, { payment_status: 'Pending' }, mover()))).toEqual([
      ['reversal', 'Cash', 100_000],
      ['reversal', 'Online', 70_000],
    ]);
  });

  it('a new method moves money that is all in the old one (a reversal and a payment), and leaves split money', () => {
    const whole = bill('Paid', 'Cash', [moved('payment', 'Cash', 170_000)]);
    expect(shape(entriesOnUpdate(whole, { payment_method: 'Card' }, mover()))).toEqual([
      ['reversal', 'Cash', 170_000],
      ['payment', 'Card', 170_000],
    ]);
    const split = bill('Paid', 'Cash', [moved('payment', 'Cash', 100_000), moved('payment', 'Card', 70_000)]);
    expect(entriesOnUpdate(split, { payment_method: 'Online' }, mover())).toEqual([]);
  });

  it('Paid to Paid, Pending to Pending, notes alone: nothing', () => {
    const paid = bill('Paid', 'Cash', [moved('payment', 'Cash', 170_000)]);
    expect(entriesOnUpdate(paid, { payment_status: 'Paid' }, mover())).toEqual([]);
    expect(entriesOnUpdate(bill('Pending', 'Cash', []), { payment_status: 'Pending' }, mover())).toEqual([]);
    expect(entriesOnUpdate(paid, { notes: 'n', received_cents: 5 }, mover())).toEqual([]);
  });

  it('is never refused for the number of entries the bill holds (the spec’s PUT)', () => {
    const full = bill(
      'Pending',
      'Cash',
      Array.from({ length: 120 }, () => moved('reversal', 'Cash', 0)),
    );
    expect(shape(entriesOnUpdate(full, { payment_status: 'Paid' }, mover()))).toEqual([['payment', 'Cash', 170_000]]);
  });
});
