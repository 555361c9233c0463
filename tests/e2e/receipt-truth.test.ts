/**
 * Issue 44: a receipt that can be handed out. The branch's letterhead from
 * the reference data; when the bill was made, the patient's age and NIC; each
 * payment with its tender, reference and who took it; a split bill per tender;
 * Refunded or Partly refunded with the net paid; cash received and given back
 * as the ledger has it, whatever a PUT wrote; a cancelled bill's receipt,
 * marked CANCELLED. Read back with pdftotext -layout.
 */
import { awayFromMidnight, clinicToday } from './money';
import { DILANI, KASUN } from './fixtures';
import { failureOf, fileStack } from './harness';
import { expectPrinted, PdfTools } from './pdf-tools';

const t = fileStack({
  stores: [
    {
      id: 1,
      name: 'Colombo Central',
      status: 'active',
      letterhead: {
        legal_name: 'Lanka Laboratories (Pvt) Ltd',
        address: '12 Galle Road, Colombo 03',
        phone: '+94 11 234 5678',
        registration_no: 'PHSRC/L/1234',
      },
    },
    { id: 2, name: 'Kandy', status: 'active' },
  ],
  users: [KASUN, DILANI, { id: 1, name: 'Admin User' }],
});
const CASHIER = { role: 'cashier', sub: KASUN.id };
let tools: PdfTools;
let chargeId: number;

beforeAll(async () => {
  tools = new PdfTools();
  chargeId = (await t.post('/hospital_charges', { store_id: 1, charge_name: 'CBC', charge_type: 'Lab', amount: 600 }))
    .body.charge_id;
});
afterAll(() => tools?.remove());

async function bill(overrides: Record<string, unknown>, qty = 2): Promise<number> {
  const res = await t.post(
    '/lab_bills',
    {
      patient_name: 'Nimal Fernando',
      patient_contact: '0771234567',
      bill_date: '2094-02-03',
      store_id: 1,
      payment_method: 'Cash',
      items: [{ charge_id: chargeId, charge_name: 'CBC', unit_price: 600, qty }],
      ...overrides,
    },
    CASHIER,
  );
  expect(res.status).toBe(201);
  return res.body.bill_id;
}

async function receiptLines(id: number, role = 'cashier', sub = KASUN.id): Promise<string[]> {
  const res = await fetch(`${t.url}/lab_bills/${id}/receipt`, {
    headers: { authorization: `Bearer ${t.token(role, sub)}` },
  });
  expect(res.status).toBe(200);
  return tools.text(Buffer.from(await res.arrayBuffer()), '-layout').split('\n');
}

describe('a receipt that tells the truth', () => {
  it('heads with the letterhead and names when the bill was made, the patient’s age and NIC', async () => {
    const id = await bill({ patient_age: 42, patient_nic: '198212345678', payment_status: 'Pending' });
    const { created_at } = (await t.get(`/lab_bills/${id}`)).body.bill;
    const lines = await receiptLines(id);
    expect(lines.slice(0, 5)).toEqual([
      'Lanka Laboratories (Pvt) Ltd',
      'Colombo Central',
      '12 Galle Road, Colombo 03',
      'Tel: +94 11 234 5678',
      'Reg. No: PHSRC/L/1234',
    ]);
    expectPrinted(lines, [`Billed at ${created_at}`, 'Age 42', 'NIC 198212345678', 'Payment status Pending']);
  });

  it('prints a split bill per tender, each payment with its reference and collector', async () => {
    await awayFromMidnight();
    const id = await bill({ payment_status: 'Pending', payment_method: 'Card' }, 4); // 2,400
    const pay = (body: unknown, sub: number) => t.post(`/lab_bills/${id}/payments`, body, { role: 'cashier', sub });
    expect((await pay({ amount: 970, method: 'Cash', received_amount: 1000 }, KASUN.id)).status).toBe(201);
    expect((await pay({ amount: 1430, method: 'Card', reference: 'VISA-4411' }, DILANI.id)).status).toBe(201);
    const lines = await receiptLines(id);
    const today = clinicToday();
    expectPrinted(lines, [
      'Payment method Split',
      'Cash 970.00',
      'Card 1,430.00',
      'Payment status Paid',
      'Received 1,000.00',
      'Balance 30.00',
      `Payment ${today} Cash 970.00`,
      'Change given 30.00',
      `Payment ${today} Card 1,430.00`,
      'Reference VISA-4411',
      'Amount due 0.00',
    ]);
    expect(lines.filter((line) => line.startsWith('Collected by Kasun Silva, ')).length).toBe(1);
    expect(lines.filter((line) => line.startsWith('Collected by Dilani Perera, ')).length).toBe(1);
  });

  it('reads Partly refunded, then Refunded, with the net paid', async () => {
    await awayFromMidnight();
    const id = await bill({ payment_status: 'Paid' }); // 1,200 paid in cash
    const refund = (amount: number) =>
      t.post(`/lab_bills/${id}/refunds`, { amount, method: 'Cash', reason: 'Not done' }, CASHIER);
    expect((await refund(500)).status).toBe(201);
    expectPrinted(await receiptLines(id), [
      'Payment status Partly refunded',
      'Total refunded 500.00',
      'Net paid 700.00',
      'Reason Not done',
    ]);
    expect((await refund(700)).status).toBe(201);
    expectPrinted(await receiptLines(id), ['Payment status Refunded', 'Total refunded 1,200.00', 'Net paid 0.00']);
  });

  it('shows the cash the ledger took, not a received_amount and balance_amount that contradict it', async () => {
    const id = await bill({ payment_status: 'Paid' }); // 1,200 paid exactly
    expect((await t.put(`/lab_bills/${id}`, { received_amount: 1500, balance_amount: 300 })).status).toBe(200);
    const lines = await receiptLines(id);
    expectPrinted(lines, ['Received 1,200.00', 'Balance 0.00']);
    expect(lines.join('\n')).not.toMatch(/1,500\.00|\b300\.00/);
  });

  it('keeps a cancelled bill’s receipt readable, marked CANCELLED with when, who and why', async () => {
    const id = await bill({ payment_status: 'Paid' });
    expect((await t.request('DELETE', `/lab_bills/${id}`, { reason: 'Billed twice' })).status).toBe(200);
    const lines = await receiptLines(id);
    expectPrinted(lines, ['CANCELLED', 'Cancelled by Admin User', 'Reason Billed twice', 'Payment status Refunded']);
    expect(lines.some((line) => /^Cancelled at \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(line))).toBe(true);
    // Still out of the reads the spec hides it from.
    expect((await t.get(`/lab_bills/${id}`)).body).toEqual(failureOf('Bill not found.'));
    // Out of reach of a token of another branch, as a live bill is.
    const other = await fetch(`${t.url}/lab_bills/${id}/receipt`, {
      headers: { authorization: `Bearer ${t.token('cashier', KASUN.id, 3600, [2])}` },
    });
    expect({ status: other.status, body: await other.json() }).toEqual({
      status: 404,
      body: failureOf('Bill not found.'),
    });
  });
});
