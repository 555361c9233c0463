/**
 * GET /lab_bills/{id}/receipt through the gateway: a PDF (80 mm roll by
 * default, A5 on request) whose text, read back with poppler's pdftotext,
 * carries every figure of the bill; JSON envelopes for every failure.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import dayjs from 'dayjs';
import timezone from 'dayjs/plugin/timezone';
import utc from 'dayjs/plugin/utc';
import { branch } from './fixtures';
import { failureOf, startTestStack, TEST_TZ, type TestStack } from './harness';
import { expectPrinted, layoutLines } from './pdf-tools';

dayjs.extend(utc);
dayjs.extend(timezone);

let t: TestStack;
let dir: string;
const charges: Record<string, number> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'clinic-receipts-'));
  t = await startTestStack();
  await t.seed({
    stores: [branch(1, 'Colombo Central')],
    users: [{ id: 7, name: 'Kasun Silva' }],
  });
  for (const [name, amount] of [
    ['Full Blood Count', 850],
    ['Lipid Profile', 2400.5],
    ['Thyroid Stimulating Hormone and Free Thyroxine panel', 4125.25],
  ] as const) {
    charges[name] = (
      await t.post('/hospital_charges', { store_id: 1, charge_name: name, charge_type: 'Lab', amount })
    ).body.charge_id;
  }
});
afterAll(async () => {
  await t?.stop();
  if (dir && !process.env.KEEP_E2E_DATA) rmSync(dir, { recursive: true, force: true });
});

/** 1234.5 -> `1,234.50`, written independently of the service's formatter. */
const money = (amount: number) =>
  amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

async function fetchReceipt(
  path: string,
  role = 'cashier',
): Promise<{ status: number; type: string | null; disposition: string | null; bytes: Buffer }> {
  const response = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${t.token(role, 7)}` } });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    disposition: response.headers.get('content-disposition'),
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

/** The PDF's text as poppler lays it out, one array entry per line, spaces squeezed. */
function pdfLines(pdf: Buffer, name: string): string[] {
  const file = join(dir, `${name}.pdf`);
  writeFileSync(file, pdf);
  return layoutLines(file);
}

function pageSizes(pdf: Buffer, name: string): string[] {
  const file = join(dir, `${name}-info.pdf`);
  writeFileSync(file, pdf);
  const info = execFileSync('pdfinfo', ['-l', '99', file], { encoding: 'utf8' });
  return [...info.matchAll(/Page\s+\d+ size:\s+([\d.]+ x [\d.]+) pts/g)].map((m) => m[1]!);
}

async function createBill(overrides: Record<string, unknown>): Promise<number> {
  const res = await t.post(
    '/lab_bills',
    {
      patient_name: 'Nimal Fernando',
      patient_contact: '0771234567',
      bill_date: '2095-07-19',
      store_id: 1,
      payment_method: 'Card',
      ...overrides,
    },
    { role: 'cashier', sub: 7 },
  );
  expect(res.status).toBe(201);
  return res.body.bill_id;
}

const items = () => [
  { charge_id: charges['Full Blood Count'], charge_name: 'Full Blood Count', unit_price: 850, qty: 2 },
  { charge_id: charges['Lipid Profile'], charge_name: 'Lipid Profile', unit_price: 2400.5, qty: 1 },
  {
    charge_id: charges['Thyroid Stimulating Hormone and Free Thyroxine panel'],
    charge_name: 'Thyroid Stimulating Hormone and Free Thyroxine panel',
    unit_price: 4125.25,
    qty: 3,
  },
];

/** Every figure of the bill, as the receipt must print it. */
function expectFigures(lines: string[], bill: any, options: { columns: boolean }) {
  const has = (line: string) => expectPrinted(lines, [line]);
  const text = lines.join('\n');
  expect(lines[0]).toBe('Colombo Central');
  has(`Bill number ${bill.bill_number}`);
  has(`Bill date ${bill.bill_date}`);
  has(`Patient ${bill.patient_name}`);
  has(`Contact ${bill.patient_contact}`);
  for (const item of bill.items) {
    const figures = options.columns
      ? `${item.qty} ${money(item.unit_price)} ${money(item.line_total)}`
      : `${item.qty} x ${money(item.unit_price)} ${money(item.line_total)}`;
    // The name may wrap; its figures sit on one line.
    expect(text).toContain(item.charge_name.split(' ')[0]);
    expect({ item: item.charge_name, found: lines.some((line) => line.endsWith(figures)) }).toEqual({
      item: item.charge_name,
      found: true,
    });
  }
  has(`Subtotal ${money(bill.subtotal)}`);
  has(
    bill.discount_type === 'pct'
      ? `Discount (${bill.discount_value}%) ${money(bill.discount_amount)}`
      : `Discount ${money(bill.discount_amount)}`,
  );
  has(`Grand total ${money(bill.grand_total)}`);
  has(`Payment method ${bill.payment_method}`);
  has(`Payment status ${bill.payment_status}`);
  if (bill.payment_method === 'Cash') {
    // The ledger's cash (what was handed over, the change given), not the bill's balance_amount where they differ.
    has(`Received ${money(bill.received_amount)}`);
    has(`Balance ${money((Math.round(bill.received_amount * 100) - Math.round(bill.grand_total * 100)) / 100)}`);
  } else {
    expect(text).not.toMatch(/Received|Balance/);
  }
  has(`Billed by ${bill.billed_by_name}`);
  const printed = lines.find((line) => line.startsWith('Printed '));
  expect(printed).toMatch(/^Printed \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  const printedAt = dayjs.tz(printed!.slice('Printed '.length), TEST_TZ);
  expect(Math.abs(printedAt.diff(dayjs(), 'second'))).toBeLessThan(300);
}

describe('GET /lab_bills/{id}/receipt', () => {
  it('prints an 80 mm receipt of a cash bill with every figure of the bill', async () => {
    const id = await createBill({
      payment_method: 'Cash',
      items: items(),
      discount_type: 'pct',
      discount_value: 7.5,
      received_amount: 20000,
      balance_amount: 394.84,
    });
    const bill = (await t.get(`/lab_bills/${id}`)).body.bill;
    // 2 x 850 + 2400.50 + 3 x 4125.25 = 16476.25; 7.5% = 1235.71875 -> 1235.72; total 15240.53.
    expect(bill).toMatchObject({ subtotal: 16476.25, discount_amount: 1235.72, grand_total: 15240.53 });

    const receipt = await fetchReceipt(`/lab_bills/${id}/receipt`);
    expect(receipt.status).toBe(200);
    expect(receipt.type).toBe('application/pdf');
    expect(receipt.disposition).toBe(`inline; filename="${bill.bill_number}.pdf"`);
    expect(receipt.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pageSizes(receipt.bytes, 'cash-80mm')).toEqual([expect.stringMatching(/^226\.772 x \d+/)]);
    expectFigures(pdfLines(receipt.bytes, 'cash-80mm'), bill, { columns: false });
  });

  it('prints an A5 receipt of a card bill, without cash amounts, over as many pages as its items need', async () => {
    const many = Array.from({ length: 45 }, (_, i) => ({ ...items()[i % 3], qty: (i % 9) + 1 }));
    const id = await createBill({ items: many, discount_type: 'flat', discount_value: 100, payment_status: 'Pending' });
    const bill = (await t.get(`/lab_bills/${id}`)).body.bill;
    const receipt = await fetchReceipt(`/lab_bills/${id}/receipt?size=a5`, 'receptionist');
    expect(receipt.status).toBe(200);
    expect(receipt.type).toBe('application/pdf');
    const sizes = pageSizes(receipt.bytes, 'card-a5');
    expect(sizes.length).toBeGreaterThan(1);
    for (const size of sizes) expect(size).toBe('419.528 x 595.276');
    expectFigures(pdfLines(receipt.bytes, 'card-a5'), bill, { columns: true });
  });

  it('prints "-" for who billed a bill without a billing user, and the 80 mm roll is as long as the bill', async () => {
    const short = await fetchReceipt(`/lab_bills/${await createBill({ items: items().slice(0, 1) })}/receipt`);
    const long = await fetchReceipt(
      `/lab_bills/${await createBill({ items: Array.from({ length: 30 }, () => items()[0]) })}/receipt`,
    );
    const height = (pdf: Buffer, name: string) => Number(pageSizes(pdf, name)[0]!.split(' x ')[1]);
    expect(height(long.bytes, 'long')).toBeGreaterThan(height(short.bytes, 'short') + 30 * 15);
    const anonymous = await t.post(
      '/lab_bills',
      {
        patient_name: 'Walk In',
        patient_contact: '011',
        bill_date: '2095-07-19',
        store_id: 1,
        payment_method: 'Online',
        items: items().slice(0, 1),
      },
      { sub: 'kiosk' },
    );
    const lines = pdfLines((await fetchReceipt(`/lab_bills/${anonymous.body.bill_id}/receipt`)).bytes, 'anonymous');
    expect(lines).toContain('Billed by -');
  });

  it('answers failures as JSON envelopes', async () => {
    const id = await createBill({ items: items().slice(0, 1) });
    const cases: Array<[string, string, number, string]> = [
      ['/lab_bills/987654/receipt', 'cashier', 404, 'Bill not found.'],
      ['/lab_bills/abc/receipt', 'cashier', 404, 'Bill not found.'],
      [`/lab_bills/${id}/receipt?size=a4`, 'cashier', 400, 'size must be one of 80mm, a5.'],
      [`/lab_bills/${id}/receipt`, 'doctor', 403, 'You do not have permission to perform this action.'],
    ];
    for (const [path, role, status, error] of cases) {
      const res = await t.get(path, { role });
      expect({ path, status: res.status, type: res.headers.get('content-type'), body: res.body }).toEqual({
        path,
        status,
        type: 'application/json; charset=utf-8',
        body: failureOf(error),
      });
    }
  });
});
