/**
 * Issue 44: the day-end as it is filed. The JSON report lists the money given
 * back that day (refunds and reversals, with their bills and reasons), the
 * day's money net of it, and the closing as GET /lab_bills/day_close answers
 * it; the printed day-end carries the close (each drawer's counted cash, what
 * was over or short, who closed the day and when), with the signature lines
 * on the page of the last table and no page holding only those.
 */
import { awayFromMidnight, clinicToday, createBill, moneyStackOfFile, refund } from './money';
import { furnitureOnlyPages, overlaps, PdfTools } from './pdf-tools';

const file = moneyStackOfFile(4);
let tools: PdfTools;
beforeAll(() => {
  tools = new PdfTools();
});
afterAll(() => tools?.remove());

const CASHIER = { role: 'cashier', sub: 7 };
const FURNITURE = [/day-end .* \(continued\)/, /^(Cashier|Checked by|Manager): /];

async function printed(store: number, date: string): Promise<Buffer> {
  const { t } = file.stack();
  const res = await fetch(`${t.url}/lab_bills/day_end?store_id=${store}&date=${date}&format=pdf`, {
    headers: { authorization: `Bearer ${t.token('cashier', 7)}` },
  });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

describe('the day-end’s refunds, net and closing', () => {
  it('lists what went back, nets it from what was taken, and reads the day open until it is closed', async () => {
    const m = file.stack();
    const store = m.freshStore();
    await awayFromMidnight();
    const today = clinicToday();
    const paid = await createBill(m, store, { bill_date: today, payment_status: 'Paid' }, CASHIER, 3); // 2,550
    expect((await refund(m, paid, { amount: 300, method: 'Cash', reason: 'ESR not done' }, CASHIER)).status).toBe(201);
    const cancelled = await createBill(m, store, { bill_date: today, payment_status: 'Paid' }, CASHIER); // 850
    expect((await m.t.request('DELETE', `/lab_bills/${cancelled}`, { reason: 'Billed twice' })).status).toBe(200);
    const { report } = (await m.t.get(`/lab_bills/day_end?store_id=${store}&date=${today}`)).body;
    const paidNumber = (await m.t.get(`/lab_bills/${paid}`)).body.bill.bill_number;
    expect(report.refunds).toEqual([
      expect.objectContaining({ bill_id: paid, bill_number: paidNumber, kind: 'refund', method: 'Cash', amount: 300 }),
      expect.objectContaining({
        bill_id: cancelled,
        kind: 'refund',
        method: 'Cash',
        amount: 850,
        reason: 'Billed twice',
      }),
    ]);
    expect(report.refunds[0]).toMatchObject({
      by: 7,
      by_name: 'Kasun Silva',
      reason: 'ESR not done',
      appointment_id: null,
    });
    expect(report.net).toEqual({ collected: 3400, given_back: 1150, net: 2250 });
    expect(report.closing).toEqual(
      (await m.t.get(`/lab_bills/day_close?store_id=${store}&date=${today}`)).body.closing,
    );
    expect(report.closing).toMatchObject({ status: 'open', closed_at: null, closed_by: null, cash: [], history: [] });
    const pdf = await printed(store, today);
    expect(tools.text(pdf, '-layout')).toContain('Not closed (open): the figures above may still change.');
  });

  it('prints the close: each drawer’s count, over or short, who closed the day and when, signatures beside it', async () => {
    const m = file.stack();
    const store = m.freshStore();
    await awayFromMidnight();
    const today = clinicToday();
    await createBill(m, store, { bill_date: today, payment_status: 'Paid' }, CASHIER, 2); // 1,700 by Kasun
    await createBill(m, store, { bill_date: today, payment_status: 'Paid' }, { role: 'cashier', sub: 8 }); // 850 by Dilani
    const closed = await m.t.post('/lab_bills/day_close', {
      store_id: store,
      date: today,
      counted_cash: [
        { user_id: 7, amount: 1650 },
        { user_id: 8, amount: 900 },
      ],
    });
    expect(closed.status).toBe(201);
    const { report } = (await m.t.get(`/lab_bills/day_end?store_id=${store}&date=${today}`)).body;
    expect(report.closing).toEqual(
      (await m.t.get(`/lab_bills/day_close?store_id=${store}&date=${today}`)).body.closing,
    );
    expect(report.closing.status).toBe('closed');

    const pdf = await printed(store, today);
    const lines = tools.text(pdf, '-layout').split('\n');
    const closedLine = lines.find((line) => line.startsWith('Closing: closed '));
    expect(closedLine).toBe(`Closing: closed ${report.closing.closed_at} by Admin User`);
    for (const expected of [
      'Kasun Silva 1,700.00 1,650.00 -50.00 short',
      'Dilani Perera 850.00 900.00 50.00 over',
      'All users 2,550.00 2,550.00 0.00',
      'Counted 2 of 2 drawers; 1 over, 1 short.',
    ])
      expect({ expected, printed: lines.includes(expected) }).toEqual({ expected, printed: true });
    // The signature lines sit on the page of the closing's table.
    const pages = tools.pageLines(pdf);
    const signed = pages.findIndex((page) => page.some((line) => line.startsWith('Manager: ')));
    expect(pages[signed]!.some((line) => line.startsWith('Closing: closed '))).toBe(true);
    expect(furnitureOnlyPages(tools, pdf, FURNITURE)).toEqual([]);
    expect(overlaps(tools.words(pdf).words)).toEqual([]);
  });

  it('keeps the signatures with the close however long the day, and never leaves them alone on a page', async () => {
    const m = file.stack();
    const store = m.freshStore();
    const date = '2093-11-02';
    const checked: number[] = [];
    // Enough cancelled bills to push the close over a page boundary at some count.
    for (let bills = 1; bills <= 40; bills++) {
      const id = await createBill(m, store, { bill_date: date }, CASHIER);
      expect((await m.t.request('DELETE', `/lab_bills/${id}`, { reason: `Cancelled ${bills}` })).status).toBe(200);
      if (bills < 24 || bills % 2) continue;
      const pdf = await printed(store, date);
      const pages = tools.pageLines(pdf);
      const signed = pages.findIndex((page) => page.some((line) => line.startsWith('Manager: ')));
      expect({ bills, closing: pages[signed]!.some((line) => line.startsWith('Closing')) }).toEqual({
        bills,
        closing: true,
      });
      expect({ bills, only: furnitureOnlyPages(tools, pdf, FURNITURE) }).toEqual({ bills, only: [] });
      checked.push(pages.length);
    }
    expect(Math.max(...checked)).toBeGreaterThan(1);
  });
});
