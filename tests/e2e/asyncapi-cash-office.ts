/**
 * The cash office's part of the AsyncAPI tour, with CASH_SHIFTS=on
 * and APPROVE_CATALOGUE_CHANGES=true: a shift opened, moved, handed over,
 * accepted, closed and signed off; approvals asked, approved, declined, used
 * and given back (a cashier's charge refused after its approval was used).
 */

/** The tour's call: one request through the gateway, both messages of its NATS hop validated. */
export type TourCall = (method: string, path: string, body?: unknown, valid?: boolean, token?: string) => Promise<any>;

/** The staff the tour's stack knows: the admin whose token the tour uses, and a cashier. */
export const TOUR_STAFF = [
  { id: 1, name: 'Tour Admin' },
  { id: 2, name: 'Tour Cashier' },
];

/** Opens the admin's shift at branch 1, its float enough for every cash refund and payout of the tour. */
export async function openTourShift(call: TourCall): Promise<number> {
  const opened = await call('POST', '/shifts', { store_id: 1, float: 100_000 });
  expect(opened.status).toBe(201);
  return opened.body.shift.id;
}

/**
 * Everything else of a shift, ending with none open (the day then closes):
 * `shift` the admin's, handed to the cashier, who counts and closes it.
 */
export async function cashOfficeTour(call: TourCall, shift: number, cashier: string, day: string): Promise<void> {
  expect((await call('GET', `/shifts?store_id=1&date=${day}`)).status).toBe(200);
  expect((await call('POST', `/shifts/${shift}/drops`, { amount: 500, reason: 'To the safe' })).status).toBe(201);
  expect((await call('POST', `/shifts/${shift}/payouts`, { amount: 50, reason: 'Stationery' })).status).toBe(201);
  expect((await call('POST', `/shifts/${shift}/drops`, { amount: -1 }, false)).status).toBe(400);
  const expected = async (id: number) => (await call('GET', `/shifts/${id}`)).body.shift.cash.expected as number;
  const counted = await expected(shift);
  expect((await call('POST', `/shifts/${shift}/handover`, { to_user_id: 2, counted })).status).toBe(200);
  const accepted = await call('POST', `/shifts/${shift}/accept`, { amount: counted }, true, cashier);
  expect(accepted.status).toBe(201);
  const next = accepted.body.shift.id as number;
  expect((await call('POST', `/shifts/${next}/close`, { counted: await expected(next) }, true, cashier)).status).toBe(
    200,
  );
  expect((await call('POST', `/shifts/${next}/sign_off`, { note: 'Counted together' })).status).toBe(200);
  await approvalsTour(call, cashier);
}

/** A cashier's charge the control refuses, its approval asked, approved, used and given back; another declined. */
async function approvalsTour(call: TourCall, cashier: string): Promise<void> {
  const charge = { store_id: 1, charge_name: 'CBC', charge_type: 'Lab', amount: 850 };
  const refused = await call('POST', '/hospital_charges', charge, true, cashier);
  expect([refused.status, refused.body.code]).toEqual([403, 'APPROVAL_REQUIRED']);
  const ask = async () => {
    const asked = await call(
      'POST',
      '/approvals',
      { ...refused.body.approval, reason: 'New price list' },
      true,
      cashier,
    );
    expect(asked.status).toBe(201);
    return asked.body.approval.id as number;
  };
  const approved = await ask();
  expect((await call('GET', '/approvals?store_id=1')).status).toBe(200);
  expect((await call('GET', `/approvals/${approved}`)).status).toBe(200);
  expect((await call('POST', `/approvals/${approved}/approve`, { note: 'Fine' })).status).toBe(200);
  // The name is taken: the approval is used, the charge refused, and the approval given back.
  const taken = await call('POST', '/hospital_charges', { ...charge, approval_id: approved }, true, cashier);
  expect([taken.status, taken.body.code]).toEqual([409, 'CHARGE_NAME_TAKEN']);
  expect((await call('POST', `/approvals/${await ask()}/decline`, { note: 'Not now' })).status).toBe(200);
  expect((await call('POST', '/approvals', { store_id: 1 }, false)).status).toBe(400);
}
