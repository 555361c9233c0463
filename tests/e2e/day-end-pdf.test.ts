/**
 * GET /lab_bills/day_end?format=pdf: the day-end printed on A4 in
 * the receipts' fonts, read back with poppler: totals, per tender from the ledger,
 * the drawer per cashier, cancelled bills with their reasons, the refunds of
 * the day, signature lines; nothing printed over anything else. Without
 * `format` the JSON report is as before.
 */
import { awayFromMidnight, clinicToday, createBill, moneyStackOfFile, refund } from './money';
import { expectPrinted, layoutLines, overlaps, PdfTools } from './pdf-tools';

const file = moneyStackOfFile(3);
let tools: PdfTools;
beforeAll(() => {
  tools = new PdfTools();
});
afterAll(() => tools?.remove());

const CANCEL_REASON = 'රෝගියාට දෙවරක් බිල්පත් කර ඇත: billed twice';
const REFUND_REASON = 'ESR not done, இரத்த மாதிரி போதவில்லை';

async function dayEndPdf(
  path: string,
): Promise<{ status: number; type: string | null; name: string | null; pdf: Buffer }> {
  const { t } = file.stack();
  const res = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${t.token('cashier', 7)}` } });
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    name: res.headers.get('content-disposition'),
    pdf: Buffer.from(await res.arrayBuffer()),
  };
}

describe('GET /lab_bills/day_end?format=pdf', () => {
  it('prints the day on A4: totals, methods, drawer, cancellations and refunds with their reasons, signatures', async () => {
    const m = file.stack();
    const store = m.freshStore();
    await awayFromMidnight();
    const today = clinicToday();
    const cashier = { role: 'cashier', sub: 7 };
    const paid = await createBill(m, store, { bill_date: today, payment_status: 'Paid' }, cashier, 3);
    await createBill(m, store, { bill_date: today, payment_method: 'Card' }, { role: 'cashier', sub: 8 }, 2);
    const cancelled = await createBill(m, store, { bill_date: today, payment_status: 'Paid' }, cashier);
    expect((await m.t.request('DELETE', `/lab_bills/${cancelled}`, { reason: CANCEL_REASON })).status).toBe(200);
    expect((await refund(m, paid, { amount: 300, method: 'Cash', reason: REFUND_REASON }, cashier)).status).toBe(201);
    const json = await m.t.get(`/lab_bills/day_end?store_id=${store}&date=${today}`);
    const report = json.body.report;
    const kasun = report.drawer.find((d: { user_id: number }) => d.user_id === 7);

    const res = await dayEndPdf(`/lab_bills/day_end?store_id=${store}&date=${today}&format=pdf`);
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/pdf');
    expect(res.name).toBe(`inline; filename="day-end-${store}-${today}.pdf"`);
    const fonts = tools.fonts(res.pdf);
    expect(fonts).toContainEqual({ name: 'NotoSans-Regular', embedded: true });
    expect(fonts).toContainEqual({ name: 'NotoSansSinhala-Regular', embedded: true });
    expect(fonts.filter((f) => !f.embedded)).toEqual([]);
    const { pages, words } = tools.words(res.pdf);
    expect(pages.map((p) => `${p.width.toFixed(0)} x ${p.height.toFixed(0)}`)).toEqual(pages.map(() => '595 x 842'));
    expect(overlaps(words)).toEqual([]);
    const text = words.map((w) => w.text).join(' ');
    const money = (amount: number) =>
      amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    expectPrinted(text, [
      `Day-end report of ${today}`,
      `All live bills ${report.totals.total_bills} ${money(report.totals.total_revenue)}`,
      // Per tender from the ledger: what the drawers took and gave back, as the drawer table says.
      `Cash ${money(report.tenders.Cash.taken)} ${money(report.tenders.Cash.given_back)} 0.00 0.00 ${money(report.tenders.Cash.net)}`,
      `Card ${money(report.tenders.Card.taken)} 0.00 0.00 0.00 ${money(report.tenders.Card.net)}`,
      `Cancelled bills (1, ${money(850)})`,
      report.cancelled.bills[0].bill_number,
      'billed twice',
      `Cash ${money(300)}`,
      'ESR not done,',
      'Cashier:',
      'Checked by:',
      'Manager:',
    ]);
    // The drawer's row as laid out (its heading wraps, which reorders the words of a one-row table).
    const kasunsRow = [money(kasun.collected.Cash), '0.00', '0.00', money(kasun.refunded.Cash), '0.00'];
    expectPrinted(layoutLines(tools.file(res.pdf)), [
      `Kasun Silva ${[...kasunsRow, money(kasun.cash_in_drawer)].join(' ')}`,
    ]);
  });

  it('answers the JSON report as before without format or with format=json, and 400 for another format', async () => {
    const m = file.stack();
    const store = m.freshStore();
    await createBill(m, store, { bill_date: '2093-06-02' });
    const plain = await m.t.get(`/lab_bills/day_end?store_id=${store}&date=2093-06-02`);
    const asJson = await m.t.get(`/lab_bills/day_end?store_id=${store}&date=2093-06-02&format=json`);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Object.keys(plain.body)).toEqual(['success', 'report']);
    expect(asJson.body).toEqual(plain.body);
    const bad = await m.t.get(`/lab_bills/day_end?store_id=${store}&date=2093-06-02&format=xml`);
    expect({ status: bad.status, body: bad.body }).toEqual({
      status: 400,
      body: { success: false, error: 'format must be one of json, pdf.', code: 'VALIDATION_FAILED', field: 'format' },
    });
  });
});
