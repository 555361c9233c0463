/**
 * An appointment's money through the gateway (billing's side):
 * split payments, a refund of the doctor's share only, the ledger and the
 * balance sessions shows, a cancellation's refunds out of the drawers that took the money
 * and in the tenders paid, keyed retries answered once, a closed day, the
 * booking slip read back with pdftotext.
 */
import { awayFromMidnight, clinicToday } from './money';
import { failureOf } from './harness';
import { expectDrawnAsHbView, expectPrinted, inkOf, layoutLines, PdfTools } from './pdf-tools';
import {
  book,
  cancel,
  DILANI_CASHIER,
  dayEndOf,
  drawerLine,
  FEE,
  freshBranch,
  pay,
  pdfOf,
  RECEPTIONIST,
  refund,
  sessionIn,
  SINHALA_BRANCH,
  t,
} from './channeling-money-stack';

let tools: PdfTools;
beforeAll(() => {
  tools = new PdfTools();
});
afterAll(() => tools?.remove());

describe('POST /appointments/{id}/payments and /refunds', () => {
  it('takes a split payment, gives back the doctor’s share only, and every read agrees', async () => {
    await awayFromMidnight();
    const store = freshBranch();
    const id = await book(await sessionIn(store), 'Nimal Perera');
    const cash = await pay(id, { amount: 1000, method: 'Cash', received_amount: 2000 });
    expect(cash.status).toBe(201);
    expect(cash.body).toMatchObject({
      success: true,
      message: 'Payment recorded successfully.',
      payment: { kind: 'payment', amount: 1000, method: 'Cash', change_amount: 1000, by: { sub: 7, role: 'cashier' } },
      appointment: {
        appointment_id: id,
        store_id: store,
        total_fee: FEE.total,
        paid_amount: 1000,
        due_amount: 1250.75,
      },
    });
    expect(cash.body.appointment.payment_status).toBe('Partly paid');
    const card = await pay(id, { amount: 1250.75, method: 'Card', reference: 'slip-9' }, DILANI_CASHIER);
    expect(card.body.appointment).toMatchObject({ paid_amount: FEE.total, due_amount: 0, payment_status: 'Paid' });
    expect((await pay(id, { amount: 0.01, method: 'Cash' })).body).toEqual(
      failureOf('amount must be at most the amount due, 0.'),
    );

    // "Refund the doctor fee only": item 1, at most what that share holds.
    const doctorOnly = { amount: FEE.doctor, method: 'Cash', reason: 'Doctor did not see the patient', item_id: 1 };
    expect((await refund(id, doctorOnly, RECEPTIONIST)).status).toBe(403);
    const back = await refund(id, doctorOnly);
    expect(back.status).toBe(201);
    expect(back.body).toMatchObject({
      message: 'Refund recorded successfully.',
      refund: { kind: 'refund', amount: FEE.doctor, item_id: 1, reason: 'Doctor did not see the patient' },
      appointment: { paid_amount: FEE.total, refunded_amount: FEE.doctor, payment_status: 'Paid' },
    });
    expect((await refund(id, { ...doctorOnly, amount: 0.01 })).body).toEqual(
      failureOf('amount must be at most what is left to refund of that item, 0.'),
    );
    expect((await refund(id, { ...doctorOnly, item_id: 3 })).body).toEqual(
      failureOf('item_id must be an item of this bill.'),
    );

    const ledger = (await t.get(`/appointments/${id}/payments`)).body;
    expect(ledger.ledger.map((e: { kind: string; amount: number }) => [e.kind, e.amount])).toEqual([
      ['payment', 1000],
      ['payment', 1250.75],
      ['refund', FEE.doctor],
    ]);
    const money = {
      total_fee: FEE.total,
      paid_amount: FEE.total,
      refunded_amount: FEE.doctor,
      due_amount: 0,
      refund_due: 0,
      payment_status: 'Paid',
    };
    expect(ledger.appointment).toEqual({
      appointment_id: id,
      session_id: Math.floor(id / 10_000),
      store_id: store,
      ...money,
    });
    // Sessions shows the same money beside the appointment (it asks billing for the balances).
    expect((await t.get(`/appointments/${id}`)).body.appointment.payment).toEqual(money);

    // The day-end: each share taken and given back, and the drawer of each cashier.
    const report = await dayEndOf(store, clinicToday());
    expect(report.channeling).toEqual({
      taken: { doctor_share: FEE.doctor, hospital_share: FEE.hospital, total: FEE.total },
      refunded: { doctor_share: FEE.doctor, hospital_share: 0, total: FEE.doctor },
      paid_out_to_doctors: 0,
      payouts_reversed: 0,
    });
    expect(drawerLine(report, 7)).toMatchObject({ collected: { Cash: 1000 }, cash_in_drawer: 1000 - FEE.doctor });
    expect(drawerLine(report, 8)).toMatchObject({ collected: { Card: 1250.75 }, cash_in_drawer: 0 });
  });

  it('answers a keyed retry once, refuses the key for another request, and 404s what sessions does not know', async () => {
    const id = await book(await sessionIn(freshBranch()), 'Retry Patient');
    const headers = { 'idempotency-key': 'appointment-pay-1' };
    const first = await pay(id, { amount: 100, method: 'Cash' }, { role: 'cashier', sub: 7, headers });
    const again = await pay(id, { amount: 100, method: 'Cash' }, { role: 'cashier', sub: 7, headers });
    expect(again.status).toBe(201);
    expect(again.body.payment.id).toBe(first.body.payment.id);
    expect((await pay(id, { amount: 200, method: 'Cash' }, { role: 'cashier', sub: 7, headers })).status).toBe(422);
    expect((await t.get(`/appointments/${id}/payments`)).body.ledger).toHaveLength(1);

    expect((await pay(id + 500, { amount: 1, method: 'Cash' })).body).toEqual(failureOf('Appointment not found.'));
    expect((await pay(id, { amount: 1, method: 'Cheque' })).body).toEqual(
      failureOf('method must be one of Cash, Card, Online.'),
    );
  });

  it('refuses money on a closed day, and takes it again once the day is reopened', async () => {
    await awayFromMidnight();
    const store = freshBranch();
    const id = await book(await sessionIn(store), 'Closed Day');
    const today = clinicToday();
    expect((await t.post('/lab_bills/day_close', { store_id: store, date: today })).status).toBe(201);
    expect((await pay(id, { amount: 100, method: 'Cash' })).body).toEqual({
      success: false,
      error: `Day ${today} is closed for store ${store}.`,
      code: 'DAY_CLOSED',
    });
    expect((await t.get(`/appointments/${id}/payments`)).body.ledger).toEqual([]);
    const reopened = await t.request('DELETE', `/lab_bills/day_close?store_id=${store}&date=${today}`, {
      reason: 'Channeling payment to take',
    });
    expect(reopened.status).toBe(200);
    expect((await pay(id, { amount: 100, method: 'Cash' })).status).toBe(201);
  });
});

describe('DELETE /appointments/{id}', () => {
  it('gives back what it holds, in the tenders paid, out of the drawer that took it; retries finish once', async () => {
    await awayFromMidnight();
    const store = freshBranch();
    const id = await book(await sessionIn(store), 'Kamal Silva');
    await pay(id, { amount: 1000, method: 'Cash' });
    await pay(id, { amount: 1250.75, method: 'Card' });

    // A receptionist may not give money back: refused before anything changes.
    expect((await cancel(id, 'Patient asked', RECEPTIONIST)).body).toEqual(
      failureOf('You do not have permission to perform this action.'),
    );
    expect((await t.get(`/appointments/${id}`)).body.appointment.status).toBe('booked');

    const headers = { 'idempotency-key': 'cancel-kamal' };
    const cancelled = await cancel(id, 'Patient asked', { ...DILANI_CASHIER, headers });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      success: true,
      message: 'Appointment cancelled successfully.',
      appointment: {
        id,
        status: 'cancelled',
        cancel_reason: 'Patient asked',
        payment: { paid_amount: FEE.total, refunded_amount: FEE.total, refund_due: 0, payment_status: 'Refunded' },
      },
    });
    const refunds = cancelled.body.refunds.map(
      (r: { method: string; amount: number; by: unknown; reason: string; drawer: unknown }) => [
        r.method,
        r.amount,
        r.by,
        r.reason,
        r.drawer,
      ],
    );
    // Dilani cancels; the money goes back out of Kasun's drawer, which took it.
    const kasuns = { user_id: 7, shift_id: null };
    expect(refunds).toEqual([
      ['Card', 1250.75, { sub: 8, role: 'cashier' }, 'Patient asked', kasuns],
      ['Cash', 1000, { sub: 8, role: 'cashier' }, 'Patient asked', kasuns],
    ]);
    const retried = await cancel(id, 'Patient asked', { ...DILANI_CASHIER, headers });
    expect(retried.body.refunds.map((r: { id: string }) => r.id)).toEqual(
      cancelled.body.refunds.map((r: { id: string }) => r.id),
    );
    expect((await cancel(id, 'Patient asked')).body.refunds).toEqual([]);
    expect((await pay(id, { amount: 1, method: 'Cash' })).body).toEqual(failureOf('Appointment is cancelled.'));
    expect((await t.get(`/appointments/${id}/payments`)).body.ledger).toHaveLength(4);

    const report = await dayEndOf(store, clinicToday());
    expect(drawerLine(report, 7)).toMatchObject({
      collected: { Cash: 1000, Card: 1250.75 },
      refunded: { Cash: 1000, Card: 1250.75 },
      cash_in_drawer: 0,
    });
    expect(drawerLine(report, 8)).toBeUndefined();
  });

  it('finishes the refund of an appointment its session cancelled (the refund sessions left due)', async () => {
    const store = freshBranch();
    const sessionId = await sessionIn(store);
    const id = await book(sessionId, 'Session Closed');
    await pay(id, { amount: 500, method: 'Cash' });
    expect((await t.put(`/update_session/${sessionId}`, { status: 'Closed' })).status).toBe(200);
    expect((await t.get(`/appointments/${id}`)).body.appointment.payment).toMatchObject({ refund_due: 500 });
    const finished = await cancel(id, 'Session cancelled');
    expect(finished.status).toBe(200);
    expect(finished.body.refunds.map((r: { amount: number }) => r.amount)).toEqual([500]);
    expect((await t.get(`/appointments/${id}`)).body.appointment.payment).toMatchObject({
      refund_due: 0,
      refunded_amount: 500,
    });
  });
});

const marksOf = (lines: string[]) => lines.filter((line) => line.includes('DUPLICATE'));

describe('GET /appointments/{id}/slip', () => {
  async function slipOf(name: string): Promise<{ id: number; pdf: Buffer }> {
    const id = await book(await sessionIn(1), name);
    await pay(id, { amount: 1000, method: 'Cash' });
    const slip = await pdfOf(`/appointments/${id}/slip`);
    expect(slip.status).toBe(200);
    expect(slip.type).toBe('application/pdf');
    return { id, pdf: slip.pdf };
  }

  it('prints the number and its time, each fee on its own line, the total and what was paid', async () => {
    const { id, pdf } = await slipOf('Ayesha Jayawardena');
    const lines = layoutLines(tools.file(pdf));
    expectPrinted(lines, [
      'Channeling appointment',
      `No. ${id % 10_000}`,
      'Patient Ayesha Jayawardena',
      "Doctor's fee 1,500.50",
      'Hospital fee 750.25',
      'Total 2,250.75',
      'Paid 1,000.00',
      'Status Partly paid',
      `Appointment ${id}`,
    ]);
    expect(lines.some((line) => /^Estimated time \d\d:\d\d$/.test(line))).toBe(true);
    expect(lines.join(' ')).not.toContain('?');
    // The original once: a reprint says which copy it is, and who printed it.
    expect(marksOf(lines)).toEqual([]);
    expect(lines.some((line) => /^Printed by \S/.test(line))).toBe(true);
    const again = layoutLines(tools.file((await pdfOf(`/appointments/${id}/slip`)).pdf));
    expect(marksOf(again)).toEqual(['DUPLICATE 1']);
    expect(marksOf(layoutLines(tools.file((await pdfOf(`/appointments/${id}/slip`)).pdf)))).toEqual(['DUPLICATE 2']);
    const fonts = tools.fonts(pdf);
    // The branch's and the doctor's names, in Sinhala, bold.
    expect(fonts).toContainEqual({ name: 'NotoSansSinhala-Bold', embedded: true });
    expect(fonts.filter((f) => !f.embedded)).toEqual([]);
    // The QR code: a dark square block below the fees, as wide as it is tall.
    const dpi = 150;
    const { words } = tools.words(pdf);
    const status = words.find((w) => w.text === 'Status')!;
    const label = words.find((w) => w.text === `${id}`)!;
    const page = tools.raster(pdf, dpi);
    const px = (points: number) => Math.round((points * dpi) / 72);
    // From below the rule under the status line to the appointment's id printed under the code.
    const qr = inkOf(page, 0, px(status.yMax + 6), page.width, px(label.yMin - 1));
    expect(qr.width).toBeGreaterThan(px(60));
    expect(Math.abs(qr.width - qr.height)).toBeLessThanOrEqual(2);
  });

  // Drawn as HarfBuzz's own hb-view draws it, as the receipts' are, and copied back from the PDF as written.
  it.each([
    ['Sinhala', 'නිමල් පෙරේරා', 'noto-sans-sinhala', 'NotoSansSinhala_400Regular'],
    ['Tamil', 'சொக்கலிங்கம் பிள்ளை', 'noto-sans-tamil', 'NotoSansTamil_400Regular'],
  ])('prints a %s patient name as hb-view draws it', async (_script, name, pkg, file) => {
    const { pdf } = await slipOf(name);
    const label = tools.words(pdf).words.find((w) => w.text === 'Patient')!;
    expectDrawnAsHbView(tools, pdf, label, name, { pkg, file, size: 8 });
    expectPrinted(tools.text(pdf, '-layout'), [SINHALA_BRANCH, 'Doctor වෛද්‍ය අනුර Dr. Anura', `Patient ${name}`]);
  });
});
