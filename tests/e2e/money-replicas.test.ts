/**
 * A bill's money with two billing replicas sharing the load (issue 25,
 * proof): concurrent payments never overpay a bill, retries of one payment
 * with one Idempotency-Key record it once, a payment racing a
 * cancellation leaves its ledger balanced, racing refunds never give back more
 * than was paid, and a day closed while payments stream in counts exactly
 * the payments that were acknowledged, every one of them, and refuses the rest.
 */
import {
  awayFromMidnight,
  clinicToday,
  createBill,
  ledgerOf,
  ledgerRecords,
  pay,
  readBill,
  refund,
  moneyStackOfFile,
} from './money';
import type { MoneyStack } from './money';

// What is asserted is the outcome of the races, not their speed: a loaded 2-core machine may take more than 5 s.
const file = moneyStackOfFile(8, { replicas: { billing: 2 }, env: { REQUEST_TIMEOUT_MS: '30000' } });
let m: MoneyStack;
beforeAll(() => {
  m = file.stack();
});

const statuses = (results: Array<{ status: number }>) => {
  const counts: Record<number, number> = {};
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
};

it('never overpays a bill under 20 concurrent payments', async () => {
  const store = m.freshStore();
  for (const round of [1, 2]) {
    const id = await createBill(m, store, {}, {}, 2); // 1700
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        pay(m, id, { amount: 170, method: i % 2 ? 'Cash' : 'Card' }, { role: 'cashier', sub: 7 }),
      ),
    );
    expect({ round, statuses: statuses(results) }).toEqual({ round, statuses: { 201: 10, 400: 10 } });
    // Every payment is 170 of 1700, so one is refused only once nothing is due.
    for (const r of results.filter((r) => r.status === 400))
      expect(r.body.error).toBe('amount must be at most the amount due, 0.');
    expect(await readBill(m, id)).toMatchObject({ paid_amount: 1700, due_amount: 0, payment_status: 'Paid' });
    const { ledger } = await ledgerOf(m, id);
    expect(ledger).toHaveLength(10);
    expect(new Set(ledger.map((e: any) => e.id))).toEqual(
      new Set(results.filter((r) => r.status === 201).map((r) => r.body.payment.id)),
    );
    expect(await ledgerRecords(m.t, { bill_id: id })).toHaveLength(10);
  }
});

it('records a payment once when retries with one Idempotency-Key race on both replicas', async () => {
  const store = m.freshStore();
  for (const round of [1, 2, 3]) {
    const id = await createBill(m, store, {}, {}, 2); // 1700
    const headers = { 'idempotency-key': `race-${round}` };
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        pay(m, id, { amount: 500, method: 'Cash' }, { role: 'cashier', sub: 7, headers }),
      ),
    );
    expect({ round, statuses: statuses(results) }).toEqual({ round, statuses: { 201: 12 } });
    const { ledger } = await ledgerOf(m, id);
    expect(ledger).toHaveLength(1);
    expect(new Set(results.map((r) => r.body.payment.id))).toEqual(new Set([ledger[0].id]));
    expect(await readBill(m, id)).toMatchObject({ paid_amount: 500, due_amount: 1200 });
    expect(await ledgerRecords(m.t, { bill_id: id })).toHaveLength(1);
  }
});

it('leaves the ledger balanced when payments race cancellations', async () => {
  const store = m.freshStore();
  const ids = await Promise.all(Array.from({ length: 12 }, () => createBill(m, store, {}, {}, 2)));
  const outcomes = await Promise.all(
    ids.map(async (id) => {
      const [first, cancel, second] = await Promise.all([
        pay(m, id, { amount: 400, method: 'Cash' }),
        m.t.request('DELETE', `/lab_bills/${id}`, { reason: 'raced' }),
        pay(m, id, { amount: 300, method: 'Card' }),
      ]);
      return { id, statuses: [first.status, cancel.status, second.status] };
    }),
  );
  for (const { id, statuses } of outcomes) {
    expect(statuses[1]).toBe(200);
    for (const status of [statuses[0], statuses[2]]) expect([201, 404]).toContain(status);
    const records = await ledgerRecords(m.t, { bill_id: id });
    const paid = records.filter((r) => r.kind === 'payment').reduce((sum, r) => sum + r.amount_cents, 0);
    const back = records.filter((r) => r.kind !== 'payment').reduce((sum, r) => sum + r.amount_cents, 0);
    // What was acknowledged was taken, and all of it was given back by the cancellation.
    const acknowledged = (statuses[0] === 201 ? 40_000 : 0) + (statuses[2] === 201 ? 30_000 : 0);
    expect({ id, paid, back }).toEqual({ id, paid: acknowledged, back: acknowledged });
    const cancellation = (await m.t.get(`/lab_bills/${id}/history`)).body.history.at(-1);
    expect(cancellation.action).toBe('cancelled');
    expect((cancellation.ledger ?? []).reduce((sum: number, e: any) => sum + Math.round(e.amount * 100), 0)).toBe(
      acknowledged,
    );
  }
});

it('never gives back more than was paid when two refunds race', async () => {
  const store = m.freshStore();
  for (let round = 0; round < 4; round++) {
    const id = await createBill(m, store, { payment_status: 'Paid' }, {}, 2); // 1700 paid
    const results = await Promise.all([
      refund(m, id, { amount: 1000, method: 'Cash', reason: 'one' }),
      refund(m, id, { amount: 1000, method: 'Cash', reason: 'two' }),
    ]);
    expect(statuses(results)).toEqual({ 201: 1, 400: 1 });
    expect(results.find((r) => r.status === 400)!.body.error).toBe(
      'amount must be at most what was paid and not yet refunded, 700.',
    );
    expect(await readBill(m, id)).toMatchObject({ paid_amount: 1700, refunded_amount: 1000 });
    expect((await ledgerRecords(m.t, { bill_id: id })).filter((r) => r.kind === 'refund')).toHaveLength(1);
  }
});

it('counts in a day’s closing every payment acknowledged before it, and refuses every one after it', async () => {
  await awayFromMidnight(120);
  const store = m.freshStore();
  const today = clinicToday();
  const bills = await Promise.all(Array.from({ length: 16 }, () => createBill(m, store, {}, {}, 10))); // 8500 each
  let acknowledgedCents = 0;
  for (let round = 0; round < 3; round++) {
    let closed = false;
    const unexpected: Array<{ status: number; body: unknown }> = [];
    const worker = async (w: number) => {
      for (let n = 0; !closed; n++) {
        const res = await pay(
          m,
          bills[(w * 7 + n) % bills.length]!,
          { amount: 1, method: 'Cash' },
          { role: 'cashier', sub: 7 },
        );
        if (res.status === 201) acknowledgedCents += 100;
        else if (res.status === 409) closed = true;
        else unexpected.push({ status: res.status, body: res.body });
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));
    await new Promise((resolve) => setTimeout(resolve, 400));
    const res = await m.t.post('/lab_bills/day_close', { store_id: store, date: today });
    expect(res.status).toBe(201);
    await Promise.all(workers);
    expect(unexpected).toEqual([]);
    // Every payment the workers were told about, and no other, is in the closing's expected cash.
    expect({ round, expected: Math.round((res.body.closing.cash[0]?.expected ?? 0) * 100) }).toEqual({
      round,
      expected: acknowledgedCents,
    });
    const records = await ledgerRecords(m.t, { store_id: store, day: today });
    expect(records.reduce((sum, r) => sum + r.amount_cents, 0)).toBe(acknowledgedCents);
    expect((await pay(m, bills[0]!, { amount: 1, method: 'Cash' })).status).toBe(409);
    expect(
      (
        await m.t.request('DELETE', `/lab_bills/day_close?store_id=${store}&date=${today}`, {
          reason: `round ${round}`,
        })
      ).status,
    ).toBe(200);
  }
  expect(acknowledgedCents).toBeGreaterThan(0);
});
