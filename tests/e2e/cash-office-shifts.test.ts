/**
 * Cashiers' shifts with CASH_SHIFTS=on, on two billing replicas:
 * a float by denomination, payments into the caller's shift, drops and petty
 * cash, a close with its count (over/short) and a manager's sign-off; a
 * handover the next cashier accepts; the day closed only once every shift
 * is; staff an identity provider names, and tokens that name nobody.
 */
import { answerOf, failureOf } from './harness';
import { awayFromMidnight, clinicToday, createBill, dayEnd, pay, readBill, refund, type MoneyStack } from './money';
import {
  ADMIN,
  answer,
  cashOfficeStackOfFile,
  closeShift,
  DILANI_CASHIER,
  KASUN_CASHIER,
  NIMALI,
  NIMALI_CASHIER,
  openShift,
  refusal,
  shiftOf,
  STRANGER,
} from './cash-office-stack';

const file = cashOfficeStackOfFile(6);
let m: MoneyStack;
beforeAll(() => {
  m = file.stack();
});

describe('a shift', () => {
  it('opens with a float by denomination, takes payments, drops and pays out, and closes short with its count', async () => {
    await awayFromMidnight();
    const store = m.freshStore();
    const bill = await createBill(m, store, { payment_status: 'Pending' }, KASUN_CASHIER);
    const noShift = await pay(m, bill, { amount: 850, method: 'Cash' }, KASUN_CASHIER);
    expect(answer(noShift)).toEqual({
      status: 409,
      body: refusal(
        'SHIFT_REQUIRED',
        `No shift pays this: open a shift at store ${store} first, or name the open shift that pays (shift_id).`,
      ),
    });

    // Through the typed client, as a front end opens it.
    const float = [
      { value: 1000, count: 4 },
      { value: 500, count: 2 },
    ];
    const opened = await answerOf(
      m.t.api(KASUN_CASHIER).POST('/shifts', { body: { store_id: store, float: 5000, float_denominations: float } }),
    );
    expect(opened.status).toBe(201);
    const shift = opened.body.shift;
    expect(shift).toMatchObject({
      store_id: store,
      day: clinicToday(),
      user_id: 7,
      user_name: 'Kasun Silva',
      status: 'open',
      float: 5000,
      float_denominations: float,
      cash: { float: 5000, expected: 5000 },
      count: null,
    });
    expect(answer(await m.t.post('/shifts', { store_id: store, float: 1 }, KASUN_CASHIER))).toEqual({
      status: 409,
      body: refusal(
        'SHIFT_ALREADY_OPEN',
        `You have a shift open at store ${store} already (shift ${shift.id}): close or hand it over first.`,
      ),
    });
    const uneven = await m.t.post('/shifts', {
      store_id: store,
      float: 10,
      float_denominations: [{ value: 3, count: 3 }],
    });
    expect(uneven.body).toEqual(
      failureOf('float_denominations must add up to the amount, 9 by the denominations given.'),
    );

    const paid = await pay(m, bill, { amount: 850, method: 'Cash', received_amount: 1000 }, KASUN_CASHIER);
    expect(paid.body.payment.drawer).toEqual({ user_id: 7, shift_id: shift.id });
    expect(
      (await m.t.post(`/shifts/${shift.id}/drops`, { amount: 3000, reason: 'To the safe' }, KASUN_CASHIER)).status,
    ).toBe(201);
    const payout = await m.t.post(`/shifts/${shift.id}/payouts`, { amount: 250, reason: 'Stationery' }, KASUN_CASHIER);
    expect(payout.status).toBe(201);
    expect(payout.body.shift.movements.map((mv: any) => [mv.kind, mv.amount, mv.reason])).toEqual([
      ['drop', 3000, 'To the safe'],
      ['payout', 250, 'Stationery'],
    ]);
    expect((await shiftOf(m, shift.id)).cash).toEqual({
      float: 5000,
      taken: 850,
      given_back: 0,
      paid_to_doctors: 0,
      dropped: 3000,
      paid_out: 250,
      expected: 2600,
    });
    expect((await m.t.post(`/shifts/${shift.id}/payouts`, { amount: 5 }, KASUN_CASHIER)).body).toEqual(
      failureOf('reason is required.'),
    );
    expect(answer(await m.t.post(`/shifts/${shift.id}/drops`, { amount: 2600.01 }, KASUN_CASHIER))).toEqual({
      status: 409,
      body: refusal('DRAWER_SHORT', `Shift ${shift.id}'s drawer holds 2600 in cash: not enough for this.`),
    });
    expect(answer(await m.t.post(`/shifts/${shift.id}/drops`, { amount: 1 }, DILANI_CASHIER))).toEqual({
      status: 403,
      body: refusal('SHIFT_NOT_YOURS', `Shift ${shift.id} is another cashier's: only they or an admin may use it.`),
    });

    const closed = await closeShift(m, shift.id, 2550, KASUN_CASHIER, {
      denominations: [
        { value: 1000, count: 2 },
        { value: 50, count: 11 },
      ],
    });
    expect(closed.status).toBe(200);
    expect(closed.body.shift).toMatchObject({
      status: 'closed',
      count: { counted: 2550, expected: 2600, difference: -50, outcome: 'short', by: { sub: 7, role: 'cashier' } },
      closed_at: expect.any(String),
    });
    // Closed: it takes no money, named or not.
    const other = await createBill(m, store, {}, KASUN_CASHIER);
    expect((await pay(m, other, { amount: 1, method: 'Cash' }, KASUN_CASHIER)).body.code).toBe('SHIFT_REQUIRED');
    expect(answer(await pay(m, other, { amount: 1, method: 'Cash', shift_id: shift.id }, ADMIN))).toEqual({
      status: 409,
      body: refusal('SHIFT_NOT_OPEN', `Shift ${shift.id} is closed: it takes no money.`, 'shift_id'),
    });
    expect(await readBill(m, other)).toMatchObject({ paid_amount: 0 });

    expect((await m.t.post(`/shifts/${shift.id}/sign_off`, {}, KASUN_CASHIER)).status).toBe(403);
    const signed = await m.t.post(`/shifts/${shift.id}/sign_off`, { note: 'Short 50: counted twice' }, ADMIN);
    expect(signed.body.shift.sign_off).toMatchObject({
      by: { sub: 1, role: 'admin' },
      note: 'Short 50: counted twice',
    });
    expect((await m.t.post(`/shifts/${shift.id}/sign_off`, undefined, ADMIN)).body).toEqual(
      refusal('SHIFT_SIGN_OFF_REFUSED', `Shift ${shift.id} is already signed off.`),
    );
    const listed = await m.t.get(`/shifts?store_id=${store}&date=${clinicToday()}`, KASUN_CASHIER);
    expect(listed.body.shifts.map((s: any) => [s.id, s.status, s.count.outcome])).toEqual([
      [shift.id, 'closed', 'short'],
    ]);
  });

  it('is handed over: counted, refused money meanwhile, accepted by the next cashier at the counted amount', async () => {
    await awayFromMidnight();
    const store = m.freshStore();
    const kasuns = await openShift(m, store, 1000, KASUN_CASHIER);
    await createBill(m, store, { payment_status: 'Paid' }, KASUN_CASHIER); // 850 cash
    const handover = await m.t.post(`/shifts/${kasuns.id}/handover`, { to_user_id: 8, counted: 1850 }, KASUN_CASHIER);
    expect(handover.status).toBe(200);
    expect(handover.body.shift).toMatchObject({
      status: 'handing_over',
      count: { counted: 1850, expected: 1850, difference: 0, outcome: 'balanced' },
      handover: { to_user_id: 8, to_user_name: 'Dilani Perera', to_shift_id: null, accepted_at: null },
    });
    const meanwhile = await createBill(m, store, {}, KASUN_CASHIER);
    expect((await pay(m, meanwhile, { amount: 10, method: 'Card' }, KASUN_CASHIER)).body).toEqual(
      refusal('SHIFT_NOT_OPEN', `Shift ${kasuns.id} is handing over: it takes no money.`),
    );
    const accept = (amount: number, as = DILANI_CASHIER) => m.t.post(`/shifts/${kasuns.id}/accept`, { amount }, as);
    expect((await accept(1850, KASUN_CASHIER)).body).toEqual(
      refusal('HANDOVER_REFUSED', `Shift ${kasuns.id} is handed over to another cashier.`),
    );
    expect((await accept(1800)).body).toEqual(
      refusal(
        'HANDOVER_REFUSED',
        'amount must be the amount counted at the handover, 1850: count again with the cashier.',
        'amount',
      ),
    );
    const accepted = await accept(1850);
    expect(accepted.status).toBe(201);
    expect(accepted.body.shift).toMatchObject({ user_id: 8, status: 'open', float: 1850, from_shift_id: kasuns.id });
    expect(accepted.body.from).toMatchObject({
      status: 'handed_over',
      handover: { to_user_id: 8, to_shift_id: accepted.body.shift.id, accepted_at: expect.any(String) },
    });
    // The retry of an accepted handover answers the same shift.
    expect((await accept(1850)).body.shift.id).toBe(accepted.body.shift.id);
    const dilanis = accepted.body.shift.id;
    expect((await pay(m, meanwhile, { amount: 850, method: 'Cash' }, DILANI_CASHIER)).body.payment.drawer).toEqual({
      user_id: 8,
      shift_id: dilanis,
    });

    const today = clinicToday();
    const counted = await m.t.post('/lab_bills/day_close', {
      store_id: store,
      date: today,
      counted_cash: [{ user_id: 8, amount: 1 }],
    });
    expect(counted.body).toEqual({
      ...failureOf('counted_cash is not taken while shifts are in use: each shift is counted at its close.'),
      field: 'counted_cash',
    });
    expect((await m.t.post('/lab_bills/day_close', { store_id: store, date: today })).body).toEqual(
      refusal(
        'SHIFTS_LIVE',
        `Shifts of store ${store} are still open on ${today}: ${dilanis}. Close or hand them over first.`,
      ),
    );
    // Refused without a trace: the day takes money again.
    expect((await m.t.get(`/lab_bills/day_close?store_id=${store}&date=${today}`)).body.closing.status).toBe('open');
    expect((await closeShift(m, dilanis, 2700, DILANI_CASHIER)).body.shift.count.outcome).toBe('balanced');
    const closed = await m.t.post('/lab_bills/day_close', { store_id: store, date: today });
    expect(closed.status).toBe(201);
    expect(closed.body.closing.cash).toEqual([
      { user_id: 7, user_name: 'Kasun Silva', expected: 1850, counted: 1850, difference: 0, outcome: 'balanced' },
      { user_id: 8, user_name: 'Dilani Perera', expected: 2700, counted: 2700, difference: 0, outcome: 'balanced' },
    ]);
  });
});

describe('staff', () => {
  it('a token whose subject names nobody reads, and moves no money', async () => {
    const store = m.freshStore();
    const bill = await createBill(m, store, {}, KASUN_CASHIER);
    expect((await m.t.get(`/lab_bills/${bill}`, STRANGER)).status).toBe(200);
    const refused = failureOf('Your sign-in maps to no staff user: you may read, not move money.');
    expect(answer(await m.t.post('/shifts', { store_id: store, float: 0 }, STRANGER))).toEqual({
      status: 403,
      body: refused,
    });
    expect(answer(await pay(m, bill, { amount: 1, method: 'Card' }, STRANGER))).toEqual({ status: 403, body: refused });
    expect(answer(await refund(m, bill, { amount: 1, method: 'Card', reason: 'x' }, STRANGER))).toEqual({
      status: 403,
      body: refused,
    });
    expect(await readBill(m, bill)).toMatchObject({ paid_amount: 0, refunded_amount: 0 });
  });

  it('an identity provider’s subject is the staff user whose record carries it: the biller, the drawer, the reports', async () => {
    await awayFromMidnight();
    const store = m.freshStore();
    const shift = await openShift(m, store, 0, NIMALI_CASHIER);
    expect(shift).toMatchObject({ user_id: NIMALI.id, user_name: NIMALI.name });
    const bill = await createBill(m, store, { bill_date: clinicToday(), payment_status: 'Paid' }, NIMALI_CASHIER);
    expect(await readBill(m, bill)).toMatchObject({ billed_by: NIMALI.id, billed_by_name: NIMALI.name });
    const report = await dayEnd(m, store, clinicToday());
    expect(report.cashiers.map((c: any) => [c.billed_by, c.billed_by_name])).toEqual([[NIMALI.id, NIMALI.name]]);
    expect(report.drawer).toEqual([
      expect.objectContaining({ user_id: NIMALI.id, user_name: NIMALI.name, cash_in_drawer: 850 }),
    ]);
    expect(report.shifts).toEqual([expect.objectContaining({ id: shift.id, user_name: NIMALI.name, expected: 850 })]);
  });
});
