/**
 * Channeling's money under concurrent requests: first payments
 * racing to open an appointment's account never overpay it, and refunds
 * racing a settlement are either counted in the payout or refused, never
 * both given back and paid to the doctor.
 */
import { book, consulted, FEE, freshBranch, pay, refund, sessionIn, settle, t } from './channeling-money-stack';

it('takes concurrent first payments on one account without overpaying it', async () => {
  const id = await book(await sessionIn(freshBranch()), 'Many Tills');
  const answers = await Promise.all(Array.from({ length: 12 }, () => pay(id, { amount: 300, method: 'Cash' })));
  // 2250.75 takes seven payments of 300; the others find too little due.
  expect(answers.filter((a) => a.status === 201)).toHaveLength(7);
  expect(answers.filter((a) => a.status === 400).map((a) => a.body.field)).toEqual(Array(5).fill('amount'));
  const read = (await t.get(`/appointments/${id}/payments`)).body;
  expect(read.ledger).toHaveLength(7);
  expect(read.appointment).toMatchObject({ paid_amount: 2100, due_amount: FEE.total - 2100 });
});

it('counts in the payout every refund that lands while a settlement is made, and refuses the rest', async () => {
  const sessionId = await sessionIn(freshBranch());
  const ids: number[] = [];
  for (const name of ['Racer One', 'Racer Two', 'Racer Three']) {
    const id = await book(sessionId, name);
    await pay(id, { amount: FEE.total, method: 'Cash' });
    await consulted(id);
    ids.push(id);
  }
  expect((await t.post(`/sessions/${sessionId}/complete`)).status).toBe(200);
  const doctorShare = { amount: 50, method: 'Cash', reason: 'Race', item_id: 1 };
  const refunds = Array.from({ length: 18 }, (_, i) => refund(ids[i % 3]!, doctorShare));
  const [settled, ...refunded] = await Promise.all([settle(sessionId), ...refunds]);
  expect(settled!.status).toBe(201);
  const landed = refunded.filter((r) => r.status === 201).length;
  expect(refunded.filter((r) => r.status !== 201).map((r) => r.body.code)).toEqual(
    Array(18 - landed).fill('SESSION_SETTLED'),
  );
  expect(settled!.body.settlement.amount).toBeCloseTo(3 * FEE.doctor - 50 * landed, 2);
  // What the ledgers hold agrees: every refund that landed is in a line.
  const lines = settled!.body.settlement.lines as Array<{ appointment_id: number; doctor_refunded: number }>;
  for (const id of ids) {
    const ledger = (await t.get(`/appointments/${id}/payments`)).body.ledger as Array<{ kind: string; amount: number }>;
    const back = ledger.filter((e) => e.kind === 'refund').reduce((sum, e) => sum + e.amount, 0);
    expect(lines.find((l) => l.appointment_id === id)!.doctor_refunded).toBeCloseTo(back, 2);
  }
});
