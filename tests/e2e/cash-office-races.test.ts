/**
 * A drawer never pays out more cash than it holds, on two billing
 * replicas: 20 cash refunds at once against a shift whose drawer holds less
 * than their sum pay exactly what it holds and refuse the rest; a drop racing
 * them does not take it below zero either; the close then counts it to the cent.
 */
import { ledgerRecords, pay, readBill, refund, awayFromMidnight, createBill, type MoneyStack } from './money';
import {
  ADMIN,
  cashOfficeStackOfFile,
  closeShift,
  KASUN_CASHIER,
  openShift,
  refusal,
  shiftOf,
} from './cash-office-stack';

const file = cashOfficeStackOfFile(3);
let m: MoneyStack;
beforeAll(() => {
  m = file.stack();
});

/** `count` bills of 850 paid by card into the caller's shift. */
async function cardBills(store: number, count: number): Promise<number[]> {
  const bills: number[] = [];
  for (let i = 0; i < count; i++) {
    const id = await createBill(m, store, {}, KASUN_CASHIER);
    expect((await pay(m, id, { amount: 850, method: 'Card' }, KASUN_CASHIER)).status).toBe(201);
    bills.push(id);
  }
  return bills;
}

describe('cash refunds racing for one drawer', () => {
  it('pays 14 refunds of 70 out of a drawer of 1,000 and refuses the other 6, never going below zero', async () => {
    await awayFromMidnight();
    const store = m.freshStore();
    const shift = await openShift(m, store, 1000, KASUN_CASHIER);
    const bills = await cardBills(store, 20);

    // Paid by card, given back in cash out of the drawer: each refund alone fits, their sum (1,400) does not.
    const answers = await Promise.all(
      bills.map((id) => refund(m, id, { amount: 70, method: 'Cash', reason: 'Given back in cash' }, KASUN_CASHIER)),
    );
    const paid = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status !== 201);
    expect(paid).toHaveLength(14);
    expect(refused.map((a) => a.body.code)).toEqual(Array.from({ length: 6 }, () => 'DRAWER_SHORT'));
    for (const a of refused)
      expect(a.body.error).toMatch(new RegExp(`^Shift ${shift.id}'s drawer holds (\\d+) in cash`));
    // What is read back: 14 refunds in the bills' ledgers and in the drawer's, none of the others.
    const refundedBills = (await Promise.all(bills.map((id) => readBill(m, id)))).filter((b) => b.refunded_amount > 0);
    expect(refundedBills.map((b) => b.refunded_amount)).toEqual(Array.from({ length: 14 }, () => 70));
    const drawer = await ledgerRecords(m.t, { shift_id: shift.id, kind: 'refund' });
    expect(drawer.reduce((sum, e) => sum + e.amount_cents, 0)).toBe(14 * 7000);
    expect((await shiftOf(m, shift.id)).cash).toMatchObject({ float: 1000, given_back: 980, expected: 20 });
    expect((await closeShift(m, shift.id, 20, KASUN_CASHIER)).body.shift.count).toMatchObject({
      expected: 20,
      outcome: 'balanced',
    });
  });

  it('keeps a drop racing the refunds within the drawer too, whichever wins', async () => {
    await awayFromMidnight();
    const store = m.freshStore();
    const shift = await openShift(m, store, 500, KASUN_CASHIER);
    const bills = await cardBills(store, 10);
    const [drop, ...refunds] = await Promise.all([
      m.t.post(`/shifts/${shift.id}/drops`, { amount: 300, reason: 'To the safe' }, ADMIN),
      ...bills.map((id) =>
        refund(m, id, { amount: 100, method: 'Cash', reason: 'Back in cash', shift_id: shift.id }, ADMIN),
      ),
    ]);
    const paidOut = refunds.filter((a) => a.status === 201).length * 100 + (drop!.status === 201 ? 300 : 0);
    expect(paidOut).toBeLessThanOrEqual(500);
    expect(paidOut).toBeGreaterThanOrEqual(500 - 99); // every cent that fits went, in hundreds or the drop
    for (const a of [drop!, ...refunds].filter((r) => r.status !== 201)) expect(a.body.code).toBe('DRAWER_SHORT');
    const after = await shiftOf(m, shift.id);
    expect(after.cash.expected).toBe(500 - paidOut);
    expect(after.cash.expected).toBeGreaterThanOrEqual(0);
    // An admin pays from the shift it names (the default would be the admin's own shift, which they have none of).
    const admins = await refund(m, bills[0]!, { amount: 1, method: 'Card', reason: 'r' }, ADMIN);
    expect(admins.body).toEqual(
      refusal(
        'SHIFT_REQUIRED',
        `No shift pays this: open a shift at store ${store} first, or name the open shift that pays (shift_id).`,
      ),
    );
  });
});
