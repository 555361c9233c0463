/**
 * Reprints and credit notes on two billing replicas. The first
 * print of a paper is the original, every later one says DUPLICATE n with who
 * printed it and when, and each is an entry of the bill's history; prints at
 * the same moment on both replicas never share a copy number. A refund's and
 * a cancellation's credit notes have numbers of their own, consecutive per
 * day, the same on every print of a note, never one for two notes.
 */
import { awayFromMidnight } from './money';
import { DILANI, KASUN } from './fixtures';
import { failureOf, fileStack } from './harness';
import { expectPrinted, PdfTools } from './pdf-tools';

const t = fileStack(
  { stores: [{ id: 1, name: 'Galle', status: 'active' }], users: [KASUN, DILANI, { id: 1, name: 'Admin User' }] },
  { replicas: { billing: 2 } },
);
let tools: PdfTools;
let chargeId: number;

beforeAll(async () => {
  tools = new PdfTools();
  chargeId = (await t.post('/hospital_charges', { store_id: 1, charge_name: 'CBC', charge_type: 'Lab', amount: 850 }))
    .body.charge_id;
});
afterAll(() => tools?.remove());

async function paidBill(qty = 1): Promise<number> {
  const res = await t.post('/lab_bills', {
    patient_name: 'Ayesha Jayawardena',
    patient_contact: '0771234567',
    bill_date: '2094-06-01',
    store_id: 1,
    payment_method: 'Cash',
    items: [{ charge_id: chargeId, charge_name: 'CBC', unit_price: 850, qty }],
  });
  expect(res.status).toBe(201);
  return res.body.bill_id;
}

async function paper(path: string, sub = KASUN.id): Promise<{ status: number; name: string | null; lines: string[] }> {
  const res = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${t.token('cashier', sub)}` } });
  expect(res.status).toBe(200);
  const lines = tools.text(Buffer.from(await res.arrayBuffer()), '-layout').split('\n');
  return { status: res.status, name: res.headers.get('content-disposition'), lines };
}

const markOf = (lines: string[]) => lines.find((line) => /^DUPLICATE \d+$/.test(line)) ?? null;
const prints = async (id: number) =>
  ((await t.get(`/lab_bills/${id}/history?per_page=100`)).body.history as Array<Record<string, any>>).filter(
    (entry) => entry.action === 'printed',
  );

describe('copies of a receipt', () => {
  it('prints the original once; every later print says DUPLICATE n, who printed it and when, in the history', async () => {
    const id = await paidBill();
    expect(markOf((await paper(`/lab_bills/${id}/receipt`)).lines)).toBeNull();
    const second = await paper(`/lab_bills/${id}/receipt?size=a5`, DILANI.id);
    expect(markOf(second.lines)).toBe('DUPLICATE 1');
    expectPrinted(second.lines, ['Printed by Dilani Perera']);
    expect(markOf((await paper(`/lab_bills/${id}/receipt`)).lines)).toBe('DUPLICATE 2');
    const history = await prints(id);
    expect(history.map(({ paper: p, copy, size, by }) => ({ p, copy, size, by }))).toEqual([
      { p: 'receipt', copy: 1, size: '80mm', by: { sub: KASUN.id, role: 'cashier' } },
      { p: 'receipt', copy: 2, size: 'a5', by: { sub: DILANI.id, role: 'cashier' } },
      { p: 'receipt', copy: 3, size: '80mm', by: { sub: KASUN.id, role: 'cashier' } },
    ]);
    expect(history.every((entry) => /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(entry.at))).toBe(true);
  });

  it('gives prints made at once on two replicas a copy each, none twice', async () => {
    const id = await paidBill();
    const marks = await Promise.all(
      Array.from({ length: 12 }, async () => markOf((await paper(`/lab_bills/${id}/receipt`)).lines)),
    );
    expect(marks.sort()).toEqual([null, ...Array.from({ length: 11 }, (_, i) => `DUPLICATE ${i + 1}`)].sort());
    expect((await prints(id)).map((entry) => entry.copy).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
  });
});

describe('credit notes', () => {
  const numberOf = (lines: string[]) =>
    /^Credit note (CN-\d{8}-\d{4})$/.exec(lines.find((l) => l.startsWith('Credit note CN-')) ?? '')?.[1];

  it('numbers the refunds of a day consecutively, once each, whichever replica prints them first', async () => {
    await awayFromMidnight();
    const refunds = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const id = await paidBill();
        const res = await t.post(`/lab_bills/${id}/refunds`, { amount: 100, method: 'Cash', reason: 'Overcharged' });
        expect(res.status).toBe(201);
        return { id, refund: res.body.refund };
      }),
    );
    const slip = ({ id, refund }: (typeof refunds)[number]) => `/lab_bills/${id}/refund_slip?refund_id=${refund.id}`;
    const numbers = await Promise.all(refunds.map(async (r) => numberOf((await paper(slip(r))).lines)));
    const day = refunds[0]!.refund.day.replaceAll('-', '');
    expect([...numbers].sort()).toEqual(
      Array.from({ length: 8 }, (_, i) => `CN-${day}-${String(i + 1).padStart(4, '0')}`),
    );
    // The same note printed again, on both replicas at once: its number, marked as copies.
    const again = await Promise.all([0, 1, 2].map(async () => (await paper(slip(refunds[0]!))).lines));
    expect(again.map(numberOf)).toEqual([numbers[0], numbers[0], numbers[0]]);
    expect(again.map(markOf).sort()).toEqual(['DUPLICATE 1', 'DUPLICATE 2', 'DUPLICATE 3']);
    const first = await paper(slip(refunds[0]!));
    expect(first.name).toBe(`inline; filename="${numbers[0]}.pdf"`);
    const billNumber = (id: number) => t.get(`/lab_bills/${id}`).then((res) => res.body.bill.bill_number as string);
    expectPrinted(first.lines, [
      'Credit note: refund',
      'Given back by Admin User',
      `Original bill ${await billNumber(refunds[0]!.id)}`,
      'Given back in Cash 100.00',
      'Total given back 100.00',
      'Reason Overcharged',
    ]);
    expect(
      (await prints(refunds[0]!.id)).filter((e) => e.paper === 'refund_slip').map((e) => e.credit_note_number),
    ).toEqual(Array.from({ length: 5 }, () => numbers[0]));
  });

  it('gives a cancelled bill a note of what its cancellation gave back, per method, who and why', async () => {
    await awayFromMidnight();
    const id = await paidBill(2); // 1,700 in cash
    const pay = await t.post(`/lab_bills/${id}/refunds`, { amount: 200, method: 'Cash', reason: 'Part' });
    expect(pay.status).toBe(201);
    const number = (await t.get(`/lab_bills/${id}`)).body.bill.bill_number;
    expect((await t.request('DELETE', `/lab_bills/${id}`, { reason: 'Wrong patient' })).status).toBe(200);
    const note = await paper(`/lab_bills/${id}/cancellation_slip?size=a5`);
    expectPrinted(note.lines, [
      'Credit note: bill cancelled',
      'Cancelled by Admin User',
      'Reason Wrong patient',
      `Original bill ${number}`,
      'Given back in Cash 1,500.00',
      'Total given back 1,500.00',
    ]);
    expect(numberOf(note.lines)).toMatch(/^CN-\d{8}-\d{4}$/);
    expect(numberOf((await paper(`/lab_bills/${id}/cancellation_slip`)).lines)).toBe(numberOf(note.lines));
  });

  it('refuses what has no note, as JSON envelopes', async () => {
    const live = await paidBill();
    const paid = (await t.get(`/lab_bills/${live}/payments`)).body.ledger[0].id;
    const cases: Array<[string, string, number, string]> = [
      [`/lab_bills/${live}/refund_slip`, 'cashier', 400, 'refund_id is required.'],
      [`/lab_bills/${live}/refund_slip?refund_id=nope`, 'cashier', 404, 'Refund not found.'],
      [`/lab_bills/${live}/refund_slip?refund_id=${paid}`, 'cashier', 404, 'Refund not found.'],
      [`/lab_bills/${live}/refund_slip?refund_id=${paid}&size=a4`, 'cashier', 400, 'size must be one of 80mm, a5.'],
      [`/lab_bills/${live}/cancellation_slip`, 'cashier', 404, 'Bill is not cancelled.'],
      ['/lab_bills/987654/cancellation_slip', 'cashier', 404, 'Bill not found.'],
      [`/lab_bills/${live}/cancellation_slip`, 'doctor', 403, 'You do not have permission to perform this action.'],
    ];
    for (const [path, role, status, error] of cases) {
      const res = await t.get(path, { role });
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status, body: failureOf(error) });
    }
  });
});
