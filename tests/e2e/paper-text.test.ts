/**
 * Issue 44's proof that papers can be copied and filed: every string sent in
 * (Sinhala with conjuncts and vowel signs drawn before their consonant, Tamil
 * with split vowels, English, a 120-character charge name) comes back exactly
 * from pdftotext on each paper billing prints; pdftotext -bbox finds no two
 * words over each other, pdftoppm renders every page, and no page holds only
 * what repeats or ends the paper.
 */
import { doctor, KASUN } from './fixtures';
import { fileStack } from './harness';
import { blankPages, flatText, furnitureOnlyPages, overlaps, PdfTools, squarePng } from './pdf-tools';

const SINHALA = 'කමල් පෙරේරා';
const TAMIL = 'முருகன் சொக்கலிங்கம்';
const ENGLISH = "Anne-Marie O'Neil";
const LEGAL = 'ශ්‍රී ලංකා රසායනාගාර (පුද්) සමාගම Lanka Laboratories';
const ADDRESS = '12 காலி வீதி, Colombo 03';
const REFUND_REASON = 'இரத்த மாதிரி போதவில்லை: sample too small';
const CANCEL_REASON = 'රෝගියාට දෙවරක් බිල්පත් කර ඇත';
const LONG_CHARGE =
  'පූර්ණ රුධිර පරීක්ෂාව முழு இரத்த எண்ணிக்கை Full Blood Count with ESR, differential count and a peripheral blood film, 24h';
const DOCTOR = 'Dr. සුනිල් ජයසූරිය';
const STORE = 1;
const TODAY_USER = { role: 'cashier', sub: 9 };

const t = fileStack({
  stores: [
    {
      id: STORE,
      name: 'Colombo',
      status: 'active',
      letterhead: {
        legal_name: LEGAL,
        address: ADDRESS,
        phone: '+94 11 234 5678',
        registration_no: 'PHSRC/L/1234',
        logo: { media_type: 'image/png', data_base64: squarePng().toString('base64') },
      },
    },
  ],
  users: [{ id: 9, name: TAMIL }, KASUN, { id: 1, name: ENGLISH }],
  doctors: [doctor(5, { name: DOCTOR, store_id: STORE, channeling_fee: 2500 })],
});
let tools: PdfTools;
let chargeId: number;
let paidBill: number;
let refundId: string;
let cancelledBill: number;
let day: string;

async function pdf(path: string): Promise<Buffer> {
  const res = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${t.token('cashier', 9)}` } });
  expect({ path, status: res.status, type: res.headers.get('content-type') }).toEqual({
    path,
    status: 200,
    type: 'application/pdf',
  });
  return Buffer.from(await res.arrayBuffer());
}

async function bill(overrides: Record<string, unknown>, qty = 1, items = 1): Promise<number> {
  const created = await t.post(
    '/lab_bills',
    {
      patient_name: SINHALA,
      patient_contact: '+94712223344',
      bill_date: '2093-04-11',
      store_id: STORE,
      payment_method: 'Cash',
      billed_by: 9,
      notes: ENGLISH,
      items: Array.from({ length: items }, () => ({
        charge_id: chargeId,
        charge_name: LONG_CHARGE,
        unit_price: 1250,
        qty,
      })),
      ...overrides,
    },
    TODAY_USER,
  );
  expect(created.status).toBe(201);
  return created.body.bill_id;
}

beforeAll(async () => {
  tools = new PdfTools();
  expect([...LONG_CHARGE].length).toBe(120);
  chargeId = (
    await t.post('/hospital_charges', { store_id: STORE, charge_name: LONG_CHARGE, charge_type: 'Lab', amount: 1250 })
  ).body.charge_id;
  paidBill = await bill({ received_amount: 5000 }, 2);
  const refunded = await t.post(
    `/lab_bills/${paidBill}/refunds`,
    { amount: 1250, method: 'Cash', reason: REFUND_REASON, item_id: paidBill * 1000 + 1 },
    TODAY_USER,
  );
  expect(refunded.status).toBe(201);
  refundId = refunded.body.refund.id;
  day = refunded.body.refund.day;
  cancelledBill = await bill({});
  expect((await t.request('DELETE', `/lab_bills/${cancelledBill}`, { reason: CANCEL_REASON })).status).toBe(200);
});
afterAll(() => tools?.remove());

/** Each string comes back from pdftotext as it was sent; the words sit apart; every page renders and holds content. */
function expectCopyable(paper: Buffer, strings: string[], furniture: RegExp[]): void {
  const text = flatText(tools, paper);
  for (const string of strings) expect({ string, copied: text.includes(string) }).toEqual({ string, copied: true });
  const { pages, words } = tools.words(paper);
  expect(overlaps(words)).toEqual([]);
  expect(blankPages(tools, paper, pages.length)).toEqual([]);
  expect(furnitureOnlyPages(tools, paper, furniture)).toEqual([]);
}

const FOOTER = [/^Billed by /, /^Printed /, /^Printed by /, /\(continued\)/];

describe('the text layer of every paper', () => {
  it.each(['80mm', 'a5'] as const)('gives back every string of a receipt (%s)', async (size) => {
    const receipt = await pdf(`/lab_bills/${paidBill}/receipt?size=${size}`);
    expectCopyable(receipt, [LEGAL, ADDRESS, SINHALA, TAMIL, ENGLISH, LONG_CHARGE, REFUND_REASON], FOOTER);
  });

  it.each(['80mm', 'a5'] as const)(
    'gives back every string of a refund slip and a cancellation slip (%s)',
    async (size) => {
      const slip = await pdf(`/lab_bills/${paidBill}/refund_slip?refund_id=${refundId}&size=${size}`);
      expectCopyable(slip, [LEGAL, ADDRESS, SINHALA, TAMIL, LONG_CHARGE, REFUND_REASON], FOOTER);
      const cancelled = await pdf(`/lab_bills/${cancelledBill}/cancellation_slip?size=${size}`);
      expectCopyable(cancelled, [LEGAL, SINHALA, ENGLISH, CANCEL_REASON], FOOTER);
    },
  );

  it('gives back every string of the printed day-end', async () => {
    const report = await pdf(`/lab_bills/day_end?store_id=${STORE}&date=2093-04-11&format=pdf`);
    expectCopyable(
      report,
      [LEGAL, ADDRESS, TAMIL, CANCEL_REASON],
      [/day-end .* \(continued\)/, /^(Cashier|Checked by|Manager): /],
    );
    const money = await pdf(`/lab_bills/day_end?store_id=${STORE}&date=${day}&format=pdf`);
    expectCopyable(
      money,
      [LEGAL, TAMIL, REFUND_REASON],
      [/day-end .* \(continued\)/, /^(Cashier|Checked by|Manager): /],
    );
  });
});

describe("the text layer of channeling's papers", () => {
  it('gives back every string of an appointment slip and of a settlement sheet', async () => {
    const made = await t.post('/add_session', {
      doctor_id: 5,
      session_date: '2093-04-12',
      session_no: 1,
      start_time: '08:00',
      end_time: '11:00',
      max_patients: 10,
    });
    expect(made.status).toBe(201);
    const session = made.body.session_id;
    const booked = await t.post(
      `/sessions/${session}/appointments`,
      { patient_name: TAMIL, patient_contact: '+94712223344', patient_nic: '851234567V' },
      TODAY_USER,
    );
    expect(booked.status).toBe(201);
    const appointment = booked.body.appointment.id;
    expect((await t.post(`/appointments/${appointment}/payments`, { amount: 2500, method: 'Cash' })).status).toBe(201);
    const slip = await pdf(`/appointments/${appointment}/slip`);
    expectCopyable(slip, [LEGAL, ADDRESS, DOCTOR, TAMIL], FOOTER);
    for (const status of ['arrived', 'consulted'])
      expect((await t.request('PUT', `/appointments/${appointment}`, { status })).status).toBe(200);
    expect((await t.post(`/sessions/${session}/complete`)).status).toBe(200);
    expect((await t.post(`/sessions/${session}/settlement`, { method: 'Cash' })).status).toBe(201);
    const sheet = await pdf(`/sessions/${session}/settlement?format=pdf`);
    expectCopyable(sheet, [LEGAL, ADDRESS, DOCTOR, TAMIL], [...FOOTER, /^(Doctor|Paid by|Checked by): /]);
  });
});

describe('pages', () => {
  it('never leave the footer of an A5 receipt alone on a sheet, however many items fill the one before', async () => {
    for (let items = 10; items <= 22; items += 2) {
      const receipt = await pdf(`/lab_bills/${await bill({ notes: null }, 1, items)}/receipt?size=a5`);
      const pages = tools.pageLines(receipt);
      expect({ items, only: furnitureOnlyPages(tools, receipt, FOOTER) }).toEqual({ items, only: [] });
      // The footer closes the receipt on the page of its totals.
      const last = pages[pages.length - 1]!;
      expect({ items, totals: last.some((line) => line.startsWith('Grand total')) }).toEqual({ items, totals: true });
    }
  });
});
