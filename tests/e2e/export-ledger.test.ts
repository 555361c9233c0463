/**
 * Issue 44's exports: names that break rows or start formulas read back with
 * a CSV parser exactly as sent (or behind the one guard a spreadsheet needs),
 * row for row; a phone number reads as written, in CSV and as a text cell in
 * Excel; cancelled bills come with their status when asked for; and the
 * ledger (payments, refunds, reversals) exports as CSV and Excel.
 */
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { EXPORT_LEDGER_COLUMNS } from '@clinic/contracts';
import { chargeIn, KASUN } from './fixtures';
import { failureOf, fileStack } from './harness';

const t = fileStack({ stores: [{ id: 1, name: 'Negombo', status: 'active' }], users: [KASUN] });
const DATE = '2092-08-14';
const INJECTED = ['a\n=1+1', 'y\r=1+1', '+94712223344', '@SUM(A1)', '-2+3'];
const PHONE = '+94712223344';
/** What a spreadsheet evaluates: =, @, a tab or line break first, or + or - before anything but a plain number. */
const FORMULA = /^[=@\t\r\n]|^[+-](?![0-9]+(\.[0-9]+)?$)/;
const CASHIER = { role: 'cashier', sub: KASUN.id };
const ids: number[] = [];
let cancelled: number;

async function download(path: string): Promise<Buffer> {
  const res = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${t.token('cashier', KASUN.id)}` } });
  expect({ path, status: res.status }).toEqual({ path, status: 200 });
  return Buffer.from(await res.arrayBuffer());
}

/**
 * Read as a spreadsheet splits lines: at any CR, LF or CRLF outside quotes. A line break left unquoted in a
 * cell would end its row here (and start one with `=1+1`), so these reads fail on the bug they guard against.
 */
const csvRows = (bytes: Buffer): Array<Record<string, string>> =>
  parse(bytes, { bom: true, columns: true, record_delimiter: ['\r\n', '\n', '\r'] });

beforeAll(async () => {
  const charge = await chargeIn(t, 1, 'CBC', 850);
  for (const name of INJECTED) {
    const res = await t.post(
      '/lab_bills',
      {
        patient_name: name,
        patient_contact: PHONE,
        bill_date: DATE,
        store_id: 1,
        payment_method: 'Cash',
        notes: name,
        items: [{ charge_id: charge, charge_name: 'CBC', unit_price: 850, qty: 1 }],
      },
      CASHIER,
    );
    expect(res.status).toBe(201);
    ids.push(res.body.bill_id);
  }
  const refund = await t.post(
    `/lab_bills/${ids[0]}/refunds`,
    { amount: 50, method: 'Cash', reason: 'x\n=1+1' },
    CASHIER,
  );
  expect(refund.status).toBe(201);
  const card = await t.post(
    `/lab_bills/${ids[1]}/refunds`,
    { amount: 850, method: 'Cash', reason: '@SUM(A1)' },
    CASHIER,
  );
  expect(card.status).toBe(201);
  cancelled = ids[4]!;
  expect((await t.request('DELETE', `/lab_bills/${cancelled}`, { reason: 'Wrong' })).status).toBe(200);
});

describe('a CSV that nothing can inject into', () => {
  it('reads back row for row, each cell as sent or behind one guard, no cell a formula, the phone as written', async () => {
    const bytes = await download(`/lab_bills/export?store_id=1&date=${DATE}&format=csv&include_cancelled=true`);
    const rows = csvRows(bytes);
    expect(rows.map((r) => Number(r.id))).toEqual(ids);
    rows.forEach((row, i) => {
      const sent = INJECTED[i]!;
      for (const cell of [row.patient_name, row.notes]) expect(cell).toBe(FORMULA.test(sent) ? `'${sent}` : sent);
      expect(row.patient_contact).toBe(PHONE);
      for (const [column, value] of Object.entries(row))
        expect({ column, value, formula: FORMULA.test(value) }).toEqual({ column, value, formula: false });
    });
    expect(rows.map((r) => r.status)).toEqual(['active', 'active', 'active', 'active', 'cancelled']);
  });

  it('leaves cancelled bills out unless asked, and gives them alone with status=cancelled', async () => {
    const live = csvRows(await download(`/lab_bills/export?store_id=1&date=${DATE}&format=csv`));
    expect(live.map((r) => Number(r.id))).toEqual(ids.filter((id) => id !== cancelled));
    const only = csvRows(
      await download(`/lab_bills/export?store_id=1&date=${DATE}&format=csv&include_cancelled=true&status=cancelled`),
    );
    expect(only.map((r) => [Number(r.id), r.status])).toEqual([[cancelled, 'cancelled']]);
    const bad = await t.get(`/lab_bills/export?store_id=1&date=${DATE}&format=csv&include_cancelled=yes`);
    expect({ status: bad.status, body: bad.body }).toEqual({
      status: 400,
      body: failureOf('include_cancelled must be one of true, false.'),
    });
  });

  it('writes Excel’s text cells as sent: the phone number as written, formulas never evaluated', async () => {
    const book = new ExcelJS.Workbook();
    await book.xlsx.load((await download(`/lab_bills/export?store_id=1&date=${DATE}&format=xlsx`)) as never);
    const sheet = book.getWorksheet('Bills')!;
    const header = (sheet.getRow(1).values as string[]).slice(1);
    const cell = (row: number, key: string) => sheet.getRow(row).getCell(header.indexOf(key) + 1);
    for (let row = 2; row <= 5; row++) {
      expect(cell(row, 'patient_contact').value).toBe(PHONE);
      expect(cell(row, 'patient_contact').type).toBe(ExcelJS.ValueType.String);
      // XML reads a lone CR as a line feed (its end-of-line rule): the line break stays, inside the cell.
      expect(cell(row, 'patient_name').value).toBe(INJECTED[row - 2]!.replace('\r', '\n'));
    }
  });
});

describe('GET /lab_bills/ledger/export', () => {
  it('exports payments, refunds and cancellations’ refunds as CSV, with bills, who, references and reasons', async () => {
    const bytes = await download(`/lab_bills/ledger/export?store_id=1&from=2000-01-01&to=2099-12-31&format=csv`);
    const rows = csvRows(bytes);
    expect(Object.keys(rows[0]!)).toEqual(EXPORT_LEDGER_COLUMNS.map((c) => c.key));
    const ledgers = await Promise.all(ids.map(async (id) => (await t.get(`/lab_bills/${id}/payments`)).body));
    const entries = ledgers.flatMap((l) =>
      l.ledger.map((e: Record<string, unknown>) => ({ ...e, bill_number: l.bill_number })),
    );
    expect(rows.map((r) => r.id).sort()).toEqual(entries.map((e) => e.id as string).sort());
    for (const row of rows) {
      const entry = entries.find((e) => e.id === row.id)!;
      expect(row).toMatchObject({
        kind: entry.kind,
        method: entry.method,
        amount: Number(entry.amount).toFixed(2),
        bill_number: entry.bill_number,
        // The drawer the money moved in: a cancellation's refund, made by the admin, comes out of Kasun's, who took it.
        collector: String((entry.drawer as { user_id: number }).user_id),
        collector_name: (entry.drawer as { user_id: number }).user_id === KASUN.id ? 'Kasun Silva' : '',
        day: entry.day,
        at: entry.at,
      });
      expect(row.reason).toBe(
        entry.reason === null ? '' : FORMULA.test(entry.reason as string) ? `'${entry.reason}` : entry.reason,
      );
    }
    expect(rows.filter((r) => r.kind === 'refund').length).toBe(3);
    const cancellation = rows.find((r) => r.bill_id === String(cancelled) && r.kind === 'refund')!;
    expect([cancellation.collector, cancellation.collector_name, cancellation.role]).toEqual([
      String(KASUN.id),
      'Kasun Silva',
      'admin',
    ]);
    const disposition = await fetch(`${t.url}/lab_bills/ledger/export?store_id=1&date=${rows[0]!.day}&format=csv`, {
      headers: { authorization: `Bearer ${t.token('cashier', KASUN.id)}` },
    });
    expect(disposition.headers.get('content-disposition')).toBe(`attachment; filename="ledger-1-${rows[0]!.day}.csv"`);
  });

  it('exports the same rows to Excel, amounts and days typed', async () => {
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(
      (await download(`/lab_bills/ledger/export?store_id=1&from=2000-01-01&to=2099-12-31&format=xlsx`)) as never,
    );
    const sheet = book.getWorksheet('Ledger')!;
    expect((sheet.getRow(1).values as string[]).slice(1)).toEqual(EXPORT_LEDGER_COLUMNS.map((c) => c.key));
    expect(sheet.rowCount - 1).toBe(5 + 3);
    const amount = sheet.getRow(2).getCell(EXPORT_LEDGER_COLUMNS.findIndex((c) => c.key === 'amount') + 1);
    expect(typeof amount.value).toBe('number');
  });

  it('refuses a query it cannot read', async () => {
    const res = await t.get('/lab_bills/ledger/export?store_id=1&from=2092-08-01&format=csv');
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: failureOf('to is required.') });
  });
});
