/**
 * GET /lab_bills/day_end through the gateway: a branch's bills of one date
 * per cashier, per payment method and per payment status; the branch totals,
 * which equal GET /lab_bills/summary for the same branch and date to the cent
 * (checked over random bills); and the bills of the date that were cancelled,
 * with who cancelled them.
 */
import fc from 'fast-check';
import { failureOf, fileStack } from './harness';
import { branch, DILANI, KASUN } from './fixtures';

const t = fileStack({
  stores: [branch(1, 'Colombo Central'), branch(2, 'Kandy Branch')],
  users: [KASUN, DILANI],
});
const chargeIds: number[] = [];

beforeAll(async () => {
  for (const [store, name, amount] of [
    [1, 'CBC', 850],
    [1, 'Lipid Profile', 2400.5],
    [2, 'CBC', 900],
  ] as const) {
    chargeIds.push(
      (await t.post('/hospital_charges', { store_id: store, charge_name: name, charge_type: 'Lab', amount })).body
        .charge_id,
    );
  }
});

/** Dates no other test of this file uses: one per test (and per property run). */
let dayCounter = 0;
function freshDate(): string {
  dayCounter++;
  return new Date(Date.UTC(2094, 2, 1) + dayCounter * 86_400_000).toISOString().slice(0, 10);
}

const cents = (amount: number) => Math.round(amount * 100);

interface BillSpec {
  cashier: 7 | 8 | 'nurse-ann';
  payment_method: 'Cash' | 'Card' | 'Online';
  payment_status: 'Paid' | 'Pending';
  discount_type: 'flat' | 'pct';
  discount_value: number;
  items: Array<{ lipid: boolean; unit_price: number; qty: number }>;
}

async function createBill(date: string, spec: BillSpec, store = 1): Promise<number> {
  const res = await t.post(
    '/lab_bills',
    {
      patient_name: 'Day End Patient',
      patient_contact: '0770000000',
      bill_date: date,
      store_id: store,
      payment_method: spec.payment_method,
      payment_status: spec.payment_status,
      discount_type: spec.discount_type,
      discount_value: spec.discount_value,
      items: spec.items.map((item) => ({
        charge_id: store === 2 ? chargeIds[2] : chargeIds[item.lipid ? 1 : 0],
        charge_name: item.lipid ? 'Lipid Profile' : 'CBC',
        unit_price: item.unit_price,
        qty: item.qty,
      })),
    },
    { role: 'cashier', sub: spec.cashier },
  );
  expect(res.status).toBe(201);
  return res.body.bill_id;
}

async function dayEnd(store: number, date: string) {
  const res = await t.get(`/lab_bills/day_end?store_id=${store}&date=${date}`);
  expect(res.status).toBe(200);
  expect(res.body.success).toBe(true);
  return res.body.report;
}

async function summary(store: number, date: string) {
  const res = await t.get(`/lab_bills/summary?store_id=${store}&date=${date}`);
  expect(res.status).toBe(200);
  return res.body.summary;
}

/** What the report must say, computed here from the bills as GET /lab_bills/{id} shows them. */
function expectedCashiers(bills: any[]) {
  const ids = [...new Set(bills.map((b) => b.billed_by))].sort((a, b) => (a ?? Infinity) - (b ?? Infinity));
  const names: Record<number, string> = { 7: 'Kasun Silva', 8: 'Dilani Perera' };
  const tally = (members: any[]) => ({
    count: members.length,
    grand_total: members.reduce((sum, b) => sum + cents(b.grand_total), 0) / 100,
  });
  return ids.map((id) => {
    const mine = bills.filter((b) => b.billed_by === id);
    return {
      billed_by: id,
      billed_by_name: id === null ? null : names[id],
      bill_count: mine.length,
      grand_total: tally(mine).grand_total,
      payment_methods: Object.fromEntries(
        ['Cash', 'Card', 'Online'].map((m) => [m, tally(mine.filter((b) => b.payment_method === m))]),
      ),
      payment_statuses: Object.fromEntries(
        ['Paid', 'Pending'].map((s) => [s, tally(mine.filter((b) => b.payment_status === s))]),
      ),
    };
  });
}

const simple = (
  cashier: BillSpec['cashier'],
  payment_method: BillSpec['payment_method'],
  payment_status: BillSpec['payment_status'],
  unit_price: number,
  qty = 1,
): BillSpec => ({
  cashier,
  payment_method,
  payment_status,
  discount_type: 'flat',
  discount_value: 0,
  items: [{ lipid: false, unit_price, qty }],
});

describe('GET /lab_bills/day_end', () => {
  it('reports each cashier, the branch totals and the cancelled bills of the date', async () => {
    const date = freshDate();
    const kept = [
      await createBill(date, simple(7, 'Cash', 'Paid', 850, 2)),
      await createBill(date, simple(7, 'Card', 'Pending', 1000.1)),
      await createBill(date, { ...simple(8, 'Online', 'Paid', 2400.5, 3), discount_type: 'pct', discount_value: 12.5 }),
      await createBill(date, simple('nurse-ann', 'Cash', 'Paid', 300)),
    ];
    const cancelled = await createBill(date, simple(8, 'Cash', 'Paid', 5000));
    const cancelledUnknownReason = await createBill(date, simple(7, 'Card', 'Paid', 999.99));
    // Other branches and other dates are not reported.
    await createBill(date, simple(7, 'Cash', 'Paid', 12345), 2);
    await createBill(freshDate(), simple(7, 'Cash', 'Paid', 12345));
    expect(
      (
        await t.request(
          'DELETE',
          `/lab_bills/${cancelled}`,
          { reason: 'Duplicate bill' },
          { sub: 'manager-1', headers: { 'x-correlation-id': 'de-1' } },
        )
      ).status,
    ).toBe(200);
    expect((await t.del(`/lab_bills/${cancelledUnknownReason}`, { sub: 3 })).status).toBe(200);

    const bills = await Promise.all(kept.map(async (id) => (await t.get(`/lab_bills/${id}`)).body.bill));
    const report = await dayEnd(1, date);
    expect(report.store_id).toBe(1);
    expect(report.date).toBe(date);
    expect(report.cashiers).toEqual(expectedCashiers(bills));
    // Cashier 8's Online bill: 3 x 2400.50 = 7201.50, less 12.5% (900.1875 -> 900.19) = 6301.31.
    expect(report.cashiers.find((c: any) => c.billed_by === 8).grand_total).toBe(6301.31);
    expect(report.cashiers.at(-1)).toMatchObject({
      billed_by: null,
      billed_by_name: null,
      bill_count: 1,
      grand_total: 300,
    });

    const branch = await summary(1, date);
    expect(report.totals).toEqual({
      ...branch,
      paid_revenue: (170_000 + 630_131 + 30_000) / 100,
      pending_revenue: 1000.1,
    });
    expect(branch).toMatchObject({ total_bills: 4, total_revenue: (170_000 + 100_010 + 630_131 + 30_000) / 100 });

    expect(report.cancelled.count).toBe(2);
    expect(report.cancelled.grand_total).toBe(5999.99);
    expect(report.cancelled.bills).toEqual(
      expect.arrayContaining([
        {
          id: cancelled,
          bill_number: expect.stringMatching(/^LB-\d{8}-\d{4}$/),
          grand_total: 5000,
          billed_by: 8,
          cancelled_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
          cancelled_by: { sub: 'manager-1', role: 'admin' },
          reason: 'Duplicate bill',
        },
        expect.objectContaining({
          id: cancelledUnknownReason,
          grand_total: 999.99,
          cancelled_by: { sub: 3, role: 'admin' },
          reason: null,
        }),
      ]),
    );
  });

  it('answers a date without bills with empty figures equal to the summary', async () => {
    const date = freshDate();
    const report = await dayEnd(1, date);
    expect(report).toEqual({
      store_id: 1,
      date,
      cashiers: [],
      totals: { ...(await summary(1, date)), paid_revenue: 0, pending_revenue: 0 },
      refunds: [],
      net: { collected: 0, given_back: 0, net: 0 },
      closing: { store_id: 1, date, status: 'open', closed_at: null, closed_by: null, cash: [], history: [] },
      cancelled: { count: 0, grand_total: 0, bills: [] },
    });
    expect(report.totals.total_bills).toBe(0);
  });

  it('refuses a missing or malformed store or date, and roles without bill access', async () => {
    const cases: Array<[string, string]> = [
      ['?date=2094-01-01', 'store_id is required.'],
      ['?store_id=1', 'date is required.'],
      ['?store_id=1&date=2094-02-30', 'date must be a date in YYYY-MM-DD format.'],
      ['?store_id=abc&date=2094-01-01', 'store_id must be a positive integer.'],
    ];
    for (const [query, error] of cases) {
      const res = await t.get(`/lab_bills/day_end${query}`);
      expect({ query, status: res.status, body: res.body }).toEqual({
        query,
        status: 400,
        body: failureOf(error),
      });
    }
    for (const role of ['admin', 'receptionist', 'cashier'])
      expect((await t.get('/lab_bills/day_end?store_id=1&date=2094-01-01', { role })).status).toBe(200);
    expect((await t.get('/lab_bills/day_end?store_id=1&date=2094-01-01', { role: 'doctor' })).status).toBe(403);
    // A static path: never read as a bill id, and it takes GET only.
    const put = await t.put('/lab_bills/day_end', { notes: 'x' });
    expect(put.status).toBe(405);
  });

  it('has totals equal to the summary to the cent, and cashier figures that add up, over random bills', async () => {
    const item = fc.record({
      lipid: fc.boolean(),
      unit_price: fc.integer({ min: 0, max: 2_000_000 }).map((c) => c / 100),
      qty: fc.integer({ min: 1, max: 99 }),
    });
    const spec: fc.Arbitrary<BillSpec & { cancel: boolean }> = fc.record({
      cashier: fc.constantFrom(7 as const, 8 as const, 'nurse-ann' as const),
      payment_method: fc.constantFrom('Cash' as const, 'Card' as const, 'Online' as const),
      payment_status: fc.constantFrom('Paid' as const, 'Pending' as const),
      discount_type: fc.constantFrom('flat' as const, 'pct' as const),
      discount_value: fc.oneof(
        fc.integer({ min: 0, max: 10_000 }).map((c) => c / 100),
        fc.integer({ min: 0, max: 1000 }).map((x) => x / 10),
      ),
      items: fc.array(item, { minLength: 1, maxLength: 4 }),
      cancel: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(spec, { minLength: 1, maxLength: 10 }), async (specs) => {
        const date = freshDate();
        const ids = [];
        for (const s of specs) ids.push(await createBill(date, s));
        const kept = [];
        for (const [i, s] of specs.entries()) {
          if (s.cancel) expect((await t.del(`/lab_bills/${ids[i]}`)).status).toBe(200);
          else kept.push(ids[i]);
        }
        const bills = await Promise.all(kept.map(async (id) => (await t.get(`/lab_bills/${id}`)).body.bill));
        const [report, branch] = await Promise.all([dayEnd(1, date), summary(1, date)]);
        const { paid_revenue, pending_revenue, ...totals } = report.totals;
        expect(totals).toEqual(branch);
        expect(cents(paid_revenue) + cents(pending_revenue)).toBe(cents(branch.total_revenue));
        expect(report.cashiers).toEqual(expectedCashiers(bills));
        expect(report.cashiers.reduce((sum: number, c: any) => sum + cents(c.grand_total), 0)).toBe(
          cents(branch.total_revenue),
        );
        expect(report.cashiers.reduce((sum: number, c: any) => sum + c.bill_count, 0)).toBe(branch.total_bills);
        expect(report.cancelled.count).toBe(specs.length - kept.length);
      }),
      { numRuns: 8 },
    );
  });
});
