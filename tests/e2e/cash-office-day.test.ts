/**
 * A cash office's day with shifts, reconciled by hand to the cent:
 * Dilani's morning shift with a float, split tenders, a cancellation the
 * admin refunds from her shift, a drop and petty cash, her drawer handed over
 * to Kasun at midday; his afternoon with a refund and a drop; both counted
 * right, signed off, the day closed. Every drawer balances, the day-end's
 * figures are the hand's, and the printed day-end shows the shifts.
 */
import { clinicToday, awayFromMidnight, createBill, dayEnd, pay, refund, type MoneyStack } from './money';
import { expectPrinted, layoutLines, PdfTools } from './pdf-tools';
import {
  ADMIN,
  cashOfficeStackOfFile,
  closeShift,
  DILANI_CASHIER,
  KASUN_CASHIER,
  openShift,
} from './cash-office-stack';

const file = cashOfficeStackOfFile(2);
let m: MoneyStack;
let tools: PdfTools;
beforeAll(() => {
  m = file.stack();
  tools = new PdfTools();
});
afterAll(() => tools?.remove());

const money = (amount: number) =>
  amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const perMethod = (Cash: number, Card = 0, Online = 0) => ({ Cash, Card, Online });

it('closes a two-cashier day with a handover, every drawer balanced and the day-end agreeing to the cent', async () => {
  await awayFromMidnight(300);
  const store = m.freshStore();
  const today = clinicToday();
  const paidToday = { bill_date: today, payment_status: 'Paid' };

  // Morning: Dilani's shift.
  const morning = await openShift(m, store, 2000, DILANI_CASHIER, {
    float_denominations: [
      { value: 1000, count: 1 },
      { value: 500, count: 2 },
    ],
  });
  const c = await createBill(m, store, paidToday, DILANI_CASHIER, 2); // 1,700 cash: billed twice, cancelled below
  await createBill(m, store, { ...paidToday, payment_method: 'Online' }, DILANI_CASHIER); // 850 online
  const b = await createBill(m, store, { bill_date: today }, DILANI_CASHIER, 2); // 1,700, split below
  expect((await pay(m, b, { amount: 700, method: 'Cash', received_amount: 1000 }, DILANI_CASHIER)).status).toBe(201);
  expect((await pay(m, b, { amount: 1000, method: 'Card', reference: 'slip 77' }, DILANI_CASHIER)).status).toBe(201);
  // The admin has no shift: the money goes back out of Dilani's, which took it.
  const cancelled = await m.t.request(
    'DELETE',
    `/lab_bills/${c}`,
    { reason: 'Billed twice', shift_id: morning.id },
    ADMIN,
  );
  expect(cancelled.status).toBe(200);
  const cancelEntry = (await m.t.get(`/lab_bills/${c}/history`)).body.history.at(-1).ledger[0];
  expect(cancelEntry).toMatchObject({
    kind: 'refund',
    amount: 1700,
    method: 'Cash',
    by: { sub: 1, role: 'admin' },
    drawer: { user_id: 8, shift_id: morning.id },
  });
  expect((await m.t.post(`/shifts/${morning.id}/drops`, { amount: 1000 }, DILANI_CASHIER)).status).toBe(201);
  const tea = { amount: 150.25, reason: 'Tea for the lab' };
  expect((await m.t.post(`/shifts/${morning.id}/payouts`, tea, DILANI_CASHIER)).status).toBe(201);

  // Midday: by hand, 2,000 + 1,700 + 700 - 1,700 - 1,000 - 150.25 = 1,549.75 in the drawer, handed to Kasun.
  const handed = await m.t.post(`/shifts/${morning.id}/handover`, { to_user_id: 7, counted: 1549.75 }, DILANI_CASHIER);
  expect(handed.body.shift.count).toMatchObject({ expected: 1549.75, difference: 0, outcome: 'balanced' });
  const accepted = await m.t.post(`/shifts/${morning.id}/accept`, { amount: 1549.75 }, KASUN_CASHIER);
  expect(accepted.status).toBe(201);
  const afternoon = accepted.body.shift;

  // Afternoon: Kasun's shift, from the drawer he took over.
  const a = await createBill(m, store, { ...paidToday, discount_value: 0.45 }, KASUN_CASHIER, 3); // 2,549.55 cash
  await createBill(m, store, { ...paidToday, payment_method: 'Card' }, KASUN_CASHIER); // 850 card
  const partial = { amount: 200.55, method: 'Cash', reason: 'ESR not done' };
  expect((await refund(m, a, partial, KASUN_CASHIER)).body.refund.drawer).toEqual({
    user_id: 7,
    shift_id: afternoon.id,
  });
  expect((await m.t.post(`/shifts/${afternoon.id}/drops`, { amount: 2000 }, KASUN_CASHIER)).status).toBe(201);
  // By hand: 1,549.75 + 2,549.55 - 200.55 - 2,000 = 1,898.75.
  const closed = await closeShift(m, afternoon.id, 1898.75, KASUN_CASHIER);
  expect(closed.body.shift.count).toMatchObject({ expected: 1898.75, counted: 1898.75, outcome: 'balanced' });
  for (const id of [morning.id, afternoon.id])
    expect((await m.t.post(`/shifts/${id}/sign_off`, { note: 'Counted with the cashier' }, ADMIN)).status).toBe(200);

  const report = await dayEnd(m, store, today);
  // The live bills: a 2,549.55, b 1,700, one online 850, one card 850; c cancelled.
  expect(report.totals).toMatchObject({ total_bills: 4, total_revenue: 5949.55, paid_count: 4 });
  expect(report.tenders).toEqual({
    Cash: { taken: 4949.55, given_back: 1900.55, paid_out: 150.25, dropped: 3000, net: 2898.75 },
    Card: { taken: 1850, given_back: 0, paid_out: 0, dropped: 0, net: 1850 },
    Online: { taken: 850, given_back: 0, paid_out: 0, dropped: 0, net: 850 },
  });
  // The drawer at the end: the morning's float, what cash the day netted, less what went to the safe.
  expect(2000 + report.tenders.Cash.net - report.tenders.Cash.dropped).toBe(1898.75);
  expect(report.drawer).toEqual([
    {
      user_id: 7,
      user_name: 'Kasun Silva',
      collected: perMethod(2549.55, 850),
      refunded: perMethod(200.55),
      dropped: perMethod(2000),
      cash_in_drawer: 349,
    },
    {
      user_id: 8,
      user_name: 'Dilani Perera',
      collected: perMethod(2400, 1000, 850),
      refunded: perMethod(1700),
      paid_out: perMethod(150.25),
      dropped: perMethod(1000),
      cash_in_drawer: -450.25,
    },
  ]);
  expect(
    report.shifts.map((s: any) => [s.id, s.user_id, s.float, s.expected, s.counted, s.outcome, s.handed_to]),
  ).toEqual([
    [morning.id, 8, 2000, 1549.75, 1549.75, 'balanced', 7],
    [afternoon.id, 7, 1549.75, 1898.75, 1898.75, 'balanced', null],
  ]);
  expect(report.shifts[0]).toMatchObject({
    taken: perMethod(2400, 1000, 850),
    given_back: perMethod(1700),
    dropped: 1000,
    paid_out: 150.25,
    signed_off_by: { sub: 1, role: 'admin' },
  });

  const day = await m.t.post('/lab_bills/day_close', { store_id: store, date: today });
  expect(day.status).toBe(201);
  expect(day.body.closing.cash.map((c: any) => [c.user_id, c.expected, c.counted, c.outcome])).toEqual([
    [7, 1898.75, 1898.75, 'balanced'],
    [8, 1549.75, 1549.75, 'balanced'],
  ]);

  const res = await fetch(`${m.t.url}/lab_bills/day_end?store_id=${store}&date=${today}&format=pdf`, {
    headers: { authorization: `Bearer ${m.t.token('cashier', 7)}` },
  });
  expect(res.status).toBe(200);
  const pdf = Buffer.from(await res.arrayBuffer());
  const lines = layoutLines(tools.file(pdf));
  const row = (...figures: number[]) => figures.map(money).join(' ');
  const endsWith = (tail: string) => lines.some((line) => line.endsWith(tail));
  expectPrinted(lines.join('\n'), ['Shifts: the drawers from float to count', 'Signed off:']);
  expectPrinted(lines, [`Cash ${row(4949.55, 1900.55, 150.25, 3000, 2898.75)}`]);
  // Float, cash in, cash out, dropped, paid out, expected, counted, over/short, per shift.
  expect(endsWith(row(2000, 2400, 1700, 1000, 150.25, 1549.75, 1549.75, 0))).toBe(true);
  expect(endsWith(row(1549.75, 2549.55, 200.55, 2000, 0, 1898.75, 1898.75, 0))).toBe(true);
});
