/**
 * Controls a clinic switches on, each refusing what the issue saw
 * go through: a charge billed at 1 instead of its price, a 100% discount, a
 * bill dated another day, a card payment refunded in cash, a Paid Cash bill
 * taking 100 of 850, a cashier repricing the catalogue. Refused with
 * APPROVAL_REQUIRED and what to ask for; asked, approved by an admin and sent
 * again with its approval_id, it goes through once, recorded in the history,
 * the day-end's exceptions (JSON and PDF) and on NATS.
 */
import { EventSubjects } from '@clinic/contracts';
import { failureOf } from './harness';
import { awayFromMidnight, clinicToday, createBill, dayEnd, pay, refund, type MoneyStack } from './money';
import { expectPrinted, layoutLines, PdfTools } from './pdf-tools';
import { ADMIN, answer, cashOfficeStackOfFile, KASUN_CASHIER, refusal } from './cash-office-stack';

const file = cashOfficeStackOfFile(4, {
  APPROVE_PRICE_OVERRIDE: 'true',
  APPROVE_DISCOUNT_ABOVE_PCT: '20',
  APPROVE_BILL_DATE: 'true',
  APPROVE_REFUND_TENDER: 'true',
  APPROVE_CASH_SHORT: 'true',
  APPROVE_CATALOGUE_CHANGES: 'true',
});
let m: MoneyStack;
let tools: PdfTools;
beforeAll(() => {
  m = file.stack();
  tools = new PdfTools();
});
afterAll(() => tools?.remove());

/** What a control's refusal answers: 403, and what to ask an admin for. */
const needs = (store: number, rules: string[], checks: unknown[]) => ({
  status: 403,
  body: {
    ...refusal(
      'APPROVAL_REQUIRED',
      `Approval required (${rules.join(', ')}): ask an admin, then send the request again with approval_id.`,
    ),
    approval: { store_id: store, checks },
  },
});
const billBody = (store: number, overrides: Record<string, unknown> = {}) => ({
  patient_name: 'Nimal Fernando',
  patient_contact: '0771234567',
  bill_date: clinicToday(),
  payment_method: 'Cash',
  payment_status: 'Pending',
  store_id: store,
  items: [{ charge_id: m.charge(store), charge_name: 'CBC', unit_price: 850, qty: 1 }],
  ...overrides,
});
const billsOf = async (store: number) => (await m.t.get(`/lab_bills?store_id=${store}`)).body.total;

describe('each control', () => {
  it('refuses what the issue saw go through, naming what needs approval, and changes nothing', async () => {
    await awayFromMidnight();
    const store = m.freshStore();
    const charge = m.charge(store);
    const cases: Array<[Record<string, unknown>, string, Record<string, unknown>]> = [
      [
        { items: [{ charge_id: charge, charge_name: 'CBC (staff)', unit_price: 1, qty: 1 }] },
        'price_override',
        { charge_id: charge, catalogue_price: 850, unit_price: 1 },
      ],
      [
        { discount_type: 'pct', discount_value: 100 },
        'discount_above_pct',
        { discount_type: 'pct', discount_value: 100, discount_amount: 850, subtotal: 850, limit_pct: 20 },
      ],
      [{ bill_date: '2096-12-31' }, 'bill_date', { bill_date: '2096-12-31', today: clinicToday() }],
      [
        { payment_status: 'Paid', received_amount: 100, balance_amount: 0 },
        'received_short',
        { grand_total: 850, received_amount: 100 },
      ],
    ];
    for (const [overrides, rule, details] of cases) {
      const res = await m.t.post('/lab_bills', billBody(store, overrides), KASUN_CASHIER);
      expect(answer(res)).toEqual(needs(store, [rule], [{ rule, details }]));
    }
    expect(await billsOf(store)).toBe(0);
    // Within the controls: billed at the catalogue's price, today, paid in full.
    expect((await m.t.post('/lab_bills', billBody(store, { payment_status: 'Paid' }), KASUN_CASHIER)).status).toBe(201);

    const card = await createBill(m, store, { bill_date: clinicToday() }, KASUN_CASHIER);
    await pay(m, card, { amount: 850, method: 'Card' }, KASUN_CASHIER);
    const cashBack = await refund(
      m,
      card,
      { amount: 850, method: 'Cash', reason: 'Patient wants cash' },
      KASUN_CASHIER,
    );
    expect(answer(cashBack)).toEqual(
      needs(
        store,
        ['refund_tender'],
        [{ rule: 'refund_tender', details: { refund_of: `bill ${card}`, method: 'Cash', paid_in: ['Card'] } }],
      ),
    );
    expect(
      (await refund(m, card, { amount: 850, method: 'Card', reason: 'Back on the card' }, KASUN_CASHIER)).status,
    ).toBe(201);

    const reprice = { charge_name: 'CBC', charge_type: 'Lab', amount: 200 };
    const repriced = await m.t.put(`/hospital_charges/${charge}`, reprice, KASUN_CASHIER);
    expect(answer(repriced)).toEqual(
      needs(
        store,
        ['catalogue_change'],
        [
          {
            rule: 'catalogue_change',
            details: { action: 'update', charge_id: charge, ...reprice, status: 'Active', notes: null },
          },
        ],
      ),
    );
    expect((await m.t.get(`/hospital_charges/${charge}`)).body.charge.amount).toBe(850);
    expect(answer(await m.t.post('/shifts', { store_id: store, float: 0 }, KASUN_CASHIER))).toEqual({
      status: 409,
      body: failureOf('Shifts are not in use at this clinic (CASH_SHIFTS=off).'),
    });
  });
});

describe('an approval', () => {
  it('asked by a cashier and approved by an admin lets the request through once, and is recorded everywhere', async () => {
    await awayFromMidnight();
    const store = m.freshStore();
    const events = file.events();
    const staffRate = billBody(store, {
      items: [{ charge_id: m.charge(store), charge_name: 'CBC (staff)', unit_price: 1, qty: 1 }],
    });
    const refused = await m.t.post('/lab_bills', staffRate, KASUN_CASHIER);
    const asked = await m.t.post('/approvals', { ...refused.body.approval, reason: 'Staff rate' }, KASUN_CASHIER);
    expect(asked.status).toBe(201);
    const approval = asked.body.approval;
    expect(approval).toMatchObject({
      store_id: store,
      status: 'requested',
      reason: 'Staff rate',
      requested_by: { sub: 7, role: 'cashier', user_id: 7, user_name: 'Kasun Silva' },
      decided_by: null,
      used: null,
    });
    const withIt = { ...staffRate, approval_id: approval.id };
    expect((await m.t.post('/lab_bills', withIt, KASUN_CASHIER)).body).toEqual(
      refusal('APPROVAL_NOT_USABLE', `Approval ${approval.id} is requested: it cannot be used.`),
    );
    const waiting = await m.t.get(`/approvals?store_id=${store}`, ADMIN);
    expect(waiting.body.approvals.map((a: any) => a.id)).toEqual([approval.id]);
    expect((await m.t.post(`/approvals/${approval.id}/approve`, {}, KASUN_CASHIER)).status).toBe(403);
    const approved = await m.t.post(`/approvals/${approval.id}/approve`, { note: 'Staff member' }, ADMIN);
    expect(approved.body.approval).toMatchObject({
      status: 'approved',
      decided_by: { sub: 1, user_name: 'Admin User' },
    });
    expect((await m.t.post(`/approvals/${approval.id}/decline`, { note: 'No' }, ADMIN)).body).toEqual(
      refusal('APPROVAL_DECIDED', `Approval ${approval.id} is already approved.`),
    );

    const created = await m.t.post('/lab_bills', withIt, KASUN_CASHIER);
    expect(created.status).toBe(201);
    const billId = created.body.bill_id;
    expect((await m.t.post('/lab_bills', withIt, KASUN_CASHIER)).body).toEqual(
      refusal('APPROVAL_NOT_USABLE', `Approval ${approval.id} is used: it cannot be used.`),
    );
    expect((await m.t.get(`/approvals/${approval.id}`)).body.approval.used).toMatchObject({
      target: 'bill',
      id: String(billId),
    });
    const history = (await m.t.get(`/lab_bills/${billId}/history`)).body.history;
    expect(history[0].approval).toMatchObject({
      id: approval.id,
      reason: 'Staff rate',
      requested_by: { sub: 7 },
      approved_by: { sub: 1, role: 'admin' },
      approved_at: expect.any(String),
    });

    // An admin's own approval is approved as asked; it covers only what it lists.
    const mine = await m.t.post(
      '/approvals',
      { store_id: store, checks: refused.body.approval.checks, reason: 'x' },
      ADMIN,
    );
    expect(mine.body.approval.status).toBe('approved');
    const other = billBody(store, {
      items: [{ charge_id: m.charge(store), charge_name: 'CBC', unit_price: 2, qty: 1 }],
    });
    expect(
      (await m.t.post('/lab_bills', { ...other, approval_id: mine.body.approval.id }, KASUN_CASHIER)).body,
    ).toEqual(
      refusal(
        'APPROVAL_NOT_USABLE',
        `Approval ${mine.body.approval.id} does not cover this request: ask for one that lists its checks.`,
      ),
    );
    const declined = await m.t.post('/approvals', { ...refused.body.approval, reason: 'Again' }, KASUN_CASHIER);
    const no = await m.t.post(`/approvals/${declined.body.approval.id}/decline`, { note: 'Not staff' }, ADMIN);
    expect(no.body.approval).toMatchObject({ status: 'declined', note: 'Not staff' });

    const report = await dayEnd(m, store, clinicToday());
    expect(report.exceptions.map((e: any) => [e.approval_id, e.status, e.rules, e.used_on])).toEqual([
      [approval.id, 'used', ['price_override'], `bill ${billId}`],
      [mine.body.approval.id, 'approved', ['price_override'], null],
      [declined.body.approval.id, 'declined', ['price_override'], null],
    ]);
    expect(report.exceptions[0]).toMatchObject({
      reason: 'Staff rate',
      requested_by: { user_name: 'Kasun Silva' },
      approved_by: { user_name: 'Admin User' },
    });
    const published = await events.waitFor(
      (e) => e.subject.startsWith('billing.approval.') && e.event.data.approval.id === approval.id,
      3,
    );
    expect(published.map((e) => e.subject)).toEqual([
      EventSubjects.approvalRequested,
      EventSubjects.approvalApproved,
      EventSubjects.approvalUsed,
    ]);

    const res = await fetch(`${m.t.url}/lab_bills/day_end?store_id=${store}&date=${clinicToday()}&format=pdf`, {
      headers: { authorization: `Bearer ${m.t.token('admin', 1)}` },
    });
    const lines = layoutLines(tools.file(Buffer.from(await res.arrayBuffer())));
    expectPrinted(lines.join('\n'), ['Approvals (exceptions to the controls)', 'Staff rate', `bill ${billId}`]);
  });

  it('lets a cashier reprice a charge once an admin approved it, in the charge’s history', async () => {
    const store = m.freshStore();
    const charge = m.charge(store);
    const reprice = { charge_name: 'CBC', charge_type: 'Lab', amount: 900 };
    const refused = await m.t.put(`/hospital_charges/${charge}`, reprice, KASUN_CASHIER);
    const mine = await m.t.post('/approvals', { ...refused.body.approval, reason: 'New supplier price' }, ADMIN);
    const repriced = await m.t.put(
      `/hospital_charges/${charge}`,
      { ...reprice, approval_id: mine.body.approval.id },
      KASUN_CASHIER,
    );
    expect(repriced.status).toBe(200);
    expect((await m.t.get(`/hospital_charges/${charge}`)).body.charge.amount).toBe(900);
    const history = (await m.t.get(`/hospital_charges/${charge}/history`)).body.history;
    expect(history.at(-1)).toMatchObject({
      action: 'updated',
      approval: { id: mine.body.approval.id, status: 'used' },
    });
    expect((await m.t.get(`/approvals/${mine.body.approval.id}`)).body.approval.used).toMatchObject({
      target: 'charge',
      id: String(charge),
    });
    // An admin's own change needs none.
    expect((await m.t.put(`/hospital_charges/${charge}`, { ...reprice, amount: 950 })).status).toBe(200);
  });
});
