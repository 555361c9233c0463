/**
 * A session's settlement through the gateway: a day's channeling
 * (split tenders, a refund, an absent patient, a cancellation, an unpaid
 * consultation), the session completed and the doctor paid out of the
 * cashier's drawer; the payout, the drawer, the day close and the day-end
 * agree to the cent with a hand computation; a second settlement and a
 * refund after it refused; a reversal, a refund, a settlement again; a
 * closed day; the A4 sheet; concurrent settlements, one paid.
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { EVENT_DATA_SCHEMAS, EventSubjects, type EventSubject } from '@clinic/contracts';
import { EventReader } from './events';
import { awayFromMidnight, clinicToday } from './money';
import { failureOf } from './harness';
import { expectPrinted, layoutLines, PdfTools } from './pdf-tools';
import {
  BRANCHES,
  book,
  cancel,
  consulted,
  dayEndOf,
  drawerLine,
  FEE,
  freshBranch,
  KASUN_CASHIER,
  pay,
  pdfOf,
  refund,
  sessionIn,
  settle,
  t,
} from './channeling-money-stack';

let tools: PdfTools;
let events: EventReader;
beforeAll(async () => {
  tools = new PdfTools();
  events = await EventReader.start(await t.nats('hospital'), 'BILLING_EVENTS');
});
afterAll(() => {
  events?.stop();
  tools?.remove();
});

const ADMIN = { role: 'admin', sub: 1 };
const marksOf = (lines: string[]) => lines.filter((line) => line.includes('DUPLICATE'));
const SETTLED = 'Session is settled: an admin must reverse its settlement before a refund.';

describe('a day of channeling, settled', () => {
  let store: number;
  let sessionId: number;
  let a1: number;
  let today: string;

  it('pays the doctor their share less refunds, and the drawer, the close and the day-end agree to the cent', async () => {
    await awayFromMidnight(300);
    today = clinicToday();
    store = freshBranch();
    sessionId = await sessionIn(store);
    a1 = await book(sessionId, 'Paid In Cash');
    const a2 = await book(sessionId, 'Split And Refunded');
    const a3 = await book(sessionId, 'Never Came');
    const a4 = await book(sessionId, 'Cancelled');
    const a5 = await book(sessionId, 'Not Paid');
    await pay(a1, { amount: FEE.total, method: 'Cash', received_amount: 3000 });
    await pay(a2, { amount: 1000, method: 'Cash' });
    await pay(a2, { amount: 1250.75, method: 'Card' });
    // No item: the hospital's 750.25 first, then 49.75 of the doctor's.
    expect((await refund(a2, { amount: 800, method: 'Cash', reason: 'Tests not needed' })).status).toBe(201);
    await pay(a3, { amount: FEE.total, method: 'Cash' });
    await pay(a4, { amount: 500, method: 'Cash' });
    // Dilani cancels: the 500 goes back out of Kasun's drawer, which took it.
    expect((await cancel(a4, 'Could not wait')).status).toBe(200);
    for (const id of [a1, a2, a5]) await consulted(id);

    expect((await settle(sessionId)).body).toEqual(
      failureOf('Session is not completed: complete it before its settlement.'),
    );
    expect((await t.post(`/sessions/${sessionId}/complete`)).status).toBe(200);
    expect((await settle(sessionId, {}, { role: 'receptionist', sub: 4 })).status).toBe(403);

    const headers = { 'idempotency-key': 'settle-the-day' };
    const settled = await settle(sessionId, undefined, { ...KASUN_CASHIER, headers });
    expect(settled.status).toBe(201);
    const earned = 1500.5 + (1500.5 - 49.75); // a1, a2; a3 absent, a5 unpaid: nothing
    expect(settled.body).toMatchObject({
      message: 'Settlement recorded successfully.',
      settlement: {
        session_id: sessionId,
        store_id: store,
        doctor_name: `Dr. Branch ${store}`,
        status: 'paid',
        amount: earned,
        method: 'Cash',
        day: today,
        paid_by: { sub: 7, role: 'cashier' },
        reversal: null,
      },
    });
    const lines = settled.body.settlement.lines.map((l: Record<string, unknown>) => [
      l.appointment_id,
      l.status,
      l.doctor_paid,
      l.doctor_refunded,
      l.earned,
    ]);
    expect(lines).toEqual([
      [a1, 'consulted', 1500.5, 0, 1500.5],
      [a2, 'consulted', 1500.5, 49.75, 1450.75],
      [a5, 'consulted', 0, 0, 0],
    ]);
    const again = await settle(sessionId, undefined, { ...KASUN_CASHIER, headers });
    expect(again.status).toBe(201);
    expect(again.body.settlement).toEqual(settled.body.settlement);
    expect((await settle(sessionId)).body).toEqual(failureOf('Session is already settled.'));
    expect((await refund(a1, { amount: 1, method: 'Cash', reason: 'Too late' })).body).toEqual(failureOf(SETTLED));
    expect((await cancel(a3, 'Too late')).body).toEqual(failureOf(SETTLED));
    expect((await t.get(`/sessions/${sessionId}/settlement`)).body.settlement).toEqual(settled.body.settlement);

    // By hand: Kasun took 2250.75 + 1000 + 2250.75 + 500 in cash, gave back 800 and 500 and paid the doctor.
    const kasunCash = 2250.75 + 1000 + 2250.75 + 500 - 800 - 500 - earned;
    const report = await dayEndOf(store, today);
    expect(drawerLine(report, 7)).toMatchObject({
      collected: { Cash: 6001.5, Card: 1250.75, Online: 0 },
      refunded: { Cash: 1300, Card: 0, Online: 0 },
      paid_out: { Cash: earned, Card: 0, Online: 0 },
      cash_in_drawer: kasunCash,
    });
    expect(drawerLine(report, 8)).toBeUndefined();
    expect(report.channeling).toEqual({
      // Payments fill the doctor's share first: a4's 500 is all the doctor's.
      taken: { doctor_share: 1500.5 * 3 + 500, hospital_share: 750.25 * 3, total: 6001.5 + 1250.75 },
      refunded: { doctor_share: 49.75 + 500, hospital_share: 750.25, total: 1300 },
      paid_out_to_doctors: earned,
      payouts_reversed: 0,
    });

    const closed = await t.post('/lab_bills/day_close', {
      store_id: store,
      date: today,
      counted_cash: [{ user_id: 7, amount: kasunCash }],
    });
    expect(closed.status).toBe(201);
    const expected = closed.body.closing.cash.map((c: Record<string, unknown>) => [c.user_id, c.expected, c.outcome]);
    expect(expected).toEqual([[7, kasunCash, 'balanced']]);
    // The day is closed: no reversal puts the payout back into it.
    const refused = await t.request('DELETE', `/sessions/${sessionId}/settlement`, { reason: 'Wrong' }, ADMIN);
    expect(refused.body).toEqual({
      success: false,
      error: `Day ${today} is closed for store ${store}.`,
      code: 'DAY_CLOSED',
    });
    const reopened = await t.request('DELETE', `/lab_bills/day_close?store_id=${store}&date=${today}`, {
      reason: 'Settlement to reverse',
    });
    expect(reopened.status).toBe(200);
  });

  it('prints the settlement on A4 with the doctor, the lines, the total and the signature lines on one page', async () => {
    const sheet = await pdfOf(`/sessions/${sessionId}/settlement?format=pdf`);
    expect(sheet.status).toBe(200);
    expect(sheet.type).toBe('application/pdf');
    const lines = layoutLines(tools.file(sheet.pdf));
    expectPrinted(lines, [
      "Doctor's settlement",
      `Doctor Dr. Branch ${store}`,
      '1 Paid In Cash consulted 1,500.50 1,500.50 0.00 1,500.50',
      '2 Split And Refunded consulted 1,500.50 1,500.50 49.75 1,450.75',
      'Total paid to the doctor 2,951.25',
    ]);
    const { pages, words } = tools.words(sheet.pdf);
    expect(pages).toHaveLength(1);
    expect(words.filter((w) => w.text === 'Received').map((w) => w.page)).toEqual([1]);
    // The original once: a reprint says which copy it is, and who printed it.
    expect(marksOf(lines)).toEqual([]);
    expect(lines.some((line) => /^Printed by \S/.test(line))).toBe(true);
    const again = await pdfOf(`/sessions/${sessionId}/settlement?format=pdf`);
    expect(marksOf(layoutLines(tools.file(again.pdf)))).toEqual(['DUPLICATE 1']);
  });

  it('reverses (admin, with a reason), then refunds, then settles again for less', async () => {
    expect(
      (await t.request('DELETE', `/sessions/${sessionId}/settlement`, { reason: 'Wrong' }, KASUN_CASHIER)).status,
    ).toBe(403);
    const reversed = await t.request(
      'DELETE',
      `/sessions/${sessionId}/settlement`,
      { reason: 'Doctor returned it' },
      ADMIN,
    );
    expect(reversed.status).toBe(200);
    expect(reversed.body).toMatchObject({
      message: 'Settlement reversed successfully.',
      settlement: { status: 'reversed', amount: 2951.25, reversal: { reason: 'Doctor returned it', by: ADMIN } },
    });
    expect((await t.get(`/sessions/${sessionId}/settlement`)).body).toEqual(failureOf('Session is not settled.'));
    const doctorOnly = { amount: 500, method: 'Cash', reason: 'Doctor saw them briefly', item_id: 1 };
    expect((await refund(a1, doctorOnly)).status).toBe(201);
    const resettled = await settle(sessionId);
    expect(resettled.status).toBe(201);
    expect(resettled.body.settlement.amount).toBe(2451.25);
    // A new settlement is a new paper: its first print is the original.
    const sheet = await pdfOf(`/sessions/${sessionId}/settlement?format=pdf`);
    expect(marksOf(layoutLines(tools.file(sheet.pdf)))).toEqual([]);

    const report = await dayEndOf(store, today);
    expect(drawerLine(report, 1)).toMatchObject({ paid_out: { Cash: -2951.25 }, cash_in_drawer: 2951.25 });
    expect(drawerLine(report, 7)).toMatchObject({
      paid_out: { Cash: 2951.25 + 2451.25 },
      cash_in_drawer: 6001.5 - 800 - 500 - 500 - 2951.25 - 2451.25,
    });
    expect(report.channeling).toMatchObject({ paid_out_to_doctors: 2451.25, payouts_reversed: 2951.25 });
    const history = await t.get(`/sessions/${sessionId}/settlement`);
    expect(history.body.settlement.lines[0]).toMatchObject({ doctor_refunded: 500, earned: 1000.5 });
  });
});

describe('settlement rules', () => {
  it('pays for absent patients when the doctor is paid for them, and once however many ask at once', async () => {
    const store = BRANCHES; // its doctor is paid for absent patients
    const sessionId = await sessionIn(store);
    const absent = await book(sessionId, 'Absent But Paid');
    const seen = await book(sessionId, 'Seen');
    await pay(absent, { amount: FEE.total, method: 'Cash' });
    await pay(seen, { amount: 1000, method: 'Online' });
    await consulted(seen);
    expect((await t.post(`/sessions/${sessionId}/complete`)).status).toBe(200);
    const attempts = await Promise.all(Array.from({ length: 8 }, () => settle(sessionId, { method: 'Online' })));
    const paid = attempts.filter((a) => a.status === 201);
    expect(paid).toHaveLength(1);
    expect(attempts.filter((a) => a.status === 409).map((a) => a.body.code)).toEqual(
      Array.from({ length: 7 }, () => 'SESSION_SETTLED'),
    );
    expect(paid[0]!.body.settlement).toMatchObject({ amount: 1500.5 + 1000, method: 'Online' });
    const report = await dayEndOf(store, clinicToday());
    expect(drawerLine(report, 7)).toMatchObject({ paid_out: { Online: 2500.5, Cash: 0 }, cash_in_drawer: FEE.total });
  });

  it('refuses a session of another branch as not found, and an unknown one', async () => {
    const sessionId = await sessionIn(freshBranch());
    const elsewhere = { role: 'cashier', sub: 7, token: t.token('cashier', 7, 3600, [BRANCHES - 1]) };
    expect((await settle(sessionId, undefined, elsewhere)).body).toEqual(failureOf('Session not found.'));
    expect((await t.get(`/sessions/${sessionId}/settlement`)).body).toEqual(failureOf('Session is not settled.'));
  });
});

describe("channeling's events", () => {
  it('publishes each payment, refund, settlement and reversal with data as the contract states it', async () => {
    const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
    const subjects: EventSubject[] = [
      EventSubjects.appointmentPaymentRecorded,
      EventSubjects.appointmentRefunded,
      EventSubjects.settlementPaid,
      EventSubjects.settlementReversed,
    ];
    for (const subject of subjects) {
      const [first] = await events.waitFor((e) => e.subject === subject);
      const validate = ajv.compile(EVENT_DATA_SCHEMAS[subject]);
      const valid = validate(first!.event.data);
      expect({ subject, errors: valid ? [] : validate.errors }).toEqual({ subject, errors: [] });
    }
    const paid = await events.waitFor((e) => e.subject === EventSubjects.settlementPaid, 3);
    expect(paid.map((e) => e.event.data.settlement.amount)).toEqual(expect.arrayContaining([2951.25, 2451.25]));
  });
});
