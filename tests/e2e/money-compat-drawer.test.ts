/**
 * What the spec's own writes mean for the ledger (points 4 and 5):
 * a bill created Paid, a PUT of payment_status or payment_method, a
 * cancellation; the edge cases docs/api.md lists; and the day-end report's
 * drawer (money by the day it moved and by who took it, owed amounts apart),
 * which agrees with the old API over random sequences of its calls.
 */
import fc from 'fast-check';
import { awayFromMidnight, clinicToday, createBill, dayEnd, netCents, pay, refund } from './money';
import { m, put } from './money-compat-stack';

describe('the drawer in the day-end report', () => {
  it('counts money on the day it moved, per user who took or gave it back; amounts owed apart, never collected', async () => {
    await awayFromMidnight();
    const store = m.freshStore();
    const billDate = '2096-06-10';
    const today = clinicToday();
    const dated = { bill_date: billDate };
    const cashPaid = await createBill(m, store, { ...dated, payment_status: 'Paid' }, { role: 'cashier', sub: 7 }); // Cash 850 by 7
    const partial = await createBill(m, store, dated, {}, 2); // 1700 owed
    await pay(m, partial, { amount: 500, method: 'Card' }, { role: 'receptionist', sub: 8 });
    await createBill(m, store, dated); // 850 owed
    const online = await createBill(
      m,
      store,
      { ...dated, payment_method: 'Online', payment_status: 'Paid' },
      { role: 'receptionist', sub: 8 },
    );
    await refund(m, online, { amount: 100, method: 'Cash', reason: 'Change in cash' }, { role: 'cashier', sub: 7 });
    await refund(m, cashPaid, { amount: 50, method: 'Cash', reason: 'Discount' }, { role: 'admin', sub: 'manager-1' });

    const moneyDay = await dayEnd(m, store, today);
    expect(moneyDay.drawer).toEqual([
      {
        user_id: 7,
        user_name: 'Kasun Silva',
        collected: { Cash: 850, Card: 0, Online: 0 },
        refunded: { Cash: 100, Card: 0, Online: 0 },
        cash_in_drawer: 750,
      },
      {
        user_id: 8,
        user_name: 'Dilani Perera',
        collected: { Cash: 0, Card: 500, Online: 850 },
        refunded: { Cash: 0, Card: 0, Online: 0 },
        cash_in_drawer: 0,
      },
      {
        user_id: 'manager-1',
        user_name: null,
        collected: { Cash: 0, Card: 0, Online: 0 },
        refunded: { Cash: 50, Card: 0, Online: 0 },
        cash_in_drawer: -50,
      },
    ]);
    // No bill is dated today in this branch: nothing owed, totals empty.
    expect(moneyDay).not.toHaveProperty('owed');
    expect(moneyDay.totals.total_bills).toBe(0);

    const billDay = await dayEnd(m, store, billDate);
    expect(billDay).not.toHaveProperty('drawer');
    expect(billDay.owed).toEqual({ bill_count: 2, due_amount: 1200 + 850 });
    const summary = (await m.t.get(`/lab_bills/summary?store_id=${store}&date=${billDate}`)).body.summary;
    const { paid_revenue, pending_revenue, ...totals } = billDay.totals;
    expect(totals).toEqual(summary);
    expect([paid_revenue, pending_revenue]).toEqual([1700, 2550]);
  });

  it('agrees with the old API over random sequences of its calls: per method, what the drawer holds is what the Paid bills total', async () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('create' as const),
        method: fc.constantFrom('Cash', 'Card', 'Online'),
        paid: fc.boolean(),
        qty: fc.integer({ min: 1, max: 3 }),
      }),
      fc.record({ kind: fc.constant('status' as const), bill: fc.nat(), status: fc.constantFrom('Paid', 'Pending') }),
      fc.record({
        kind: fc.constant('method' as const),
        bill: fc.nat(),
        method: fc.constantFrom('Cash', 'Card', 'Online'),
        status: fc.constantFrom('Paid', 'Pending', ''),
      }),
      fc.record({ kind: fc.constant('cancel' as const), bill: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 3, maxLength: 12 }), async (ops) => {
        const store = m.freshStore();
        const bills: number[] = [];
        for (const o of ops) {
          if (o.kind === 'create') {
            bills.push(
              await createBill(
                m,
                store,
                { payment_method: o.method, payment_status: o.paid ? 'Paid' : 'Pending' },
                { role: 'cashier', sub: 7 },
                o.qty,
              ),
            );
            continue;
          }
          if (bills.length === 0) continue;
          const id = bills[o.bill % bills.length]!;
          if (o.kind === 'status') await put(id, { payment_status: o.status }, { role: 'receptionist', sub: 8 });
          else if (o.kind === 'method') await put(id, { payment_method: o.method, payment_status: o.status });
          else await m.t.del(`/lab_bills/${id}`);
        }
        const live = (await m.t.get(`/lab_bills?store_id=${store}&per_page=100`)).body.bills;
        const held = (method: string) =>
          live
            .filter((b: any) => b.payment_status === 'Paid' && b.payment_method === method)
            .reduce((sum: number, b: any) => sum + Math.round(b.grand_total * 100), 0);
        const drawer = (await dayEnd(m, store, clinicToday())).drawer ?? [];
        for (const method of ['Cash', 'Card', 'Online']) {
          const net = drawer.reduce(
            (sum: number, u: any) => sum + Math.round(u.collected[method] * 100) - Math.round(u.refunded[method] * 100),
            0,
          );
          expect({ method, net }).toEqual({ method, net: held(method) });
        }
        for (const b of live) expect(b.paid_amount).toBe(b.payment_status === 'Paid' ? b.grand_total : 0);
        // Each bill's ledger nets to what it holds.
        for (const id of bills) {
          const { ledger } = await m.t.get(`/lab_bills/${id}/payments`).then((r) => r.body);
          const bill = live.find((b: any) => b.id === id);
          if (ledger) expect(netCents(ledger)).toBe(Math.round((bill?.paid_amount ?? 0) * 100));
        }
      }),
      { numRuns: 8 },
    );
  });
});
