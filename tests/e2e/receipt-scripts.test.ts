/**
 * Receipts in Sinhala, Tamil and English, read back with poppler
 * and compared with HarfBuzz's hb-view: the Noto fonts are embedded, Sinhala
 * and Tamil are shaped as HarfBuzz shapes them (a repaya included) rather
 * than printed as `?` or boxes, and long names, charges and notes wrap
 * without a word printed over another, on the 80 mm roll and on A5.
 */
import { expectDrawnAsHbView, overlaps, PdfTools } from './pdf-tools';
import { branch } from './fixtures';
import { startTestStack, type TestStack } from './harness';

let t: TestStack;
let tools: PdfTools;
let chargeId: number;

const SINHALA_NAME = 'සුනිල් ආර්‍යරත්න';
const TAMIL_USER = 'முருகன் சொக்கலிங்கம்';
const LONG_CHARGE = `පූර්ණ රුධිර පරීක්ෂාව முழு இரத்த எண்ணிக்கை Full Blood Count with ESR and a differential count`;

beforeAll(async () => {
  tools = new PdfTools();
  t = await startTestStack();
  await t.seed({
    stores: [branch(1, 'කොළඹ ශාඛාව Colombo')],
    users: [{ id: 9, name: TAMIL_USER }],
  });
  chargeId = (
    await t.post('/hospital_charges', { store_id: 1, charge_name: LONG_CHARGE, charge_type: 'Lab', amount: 999_999.99 })
  ).body.charge_id;
});
afterAll(async () => {
  await t?.stop();
  tools?.remove();
});

async function receipt(bill: Record<string, unknown>, size: '80mm' | 'a5'): Promise<Buffer> {
  const created = await t.post(
    '/lab_bills',
    {
      patient_contact: '0771234567',
      bill_date: '2093-04-11',
      store_id: 1,
      payment_method: 'Cash',
      received_amount: 99_999_999,
      billed_by: 9,
      items: [{ charge_id: chargeId, charge_name: LONG_CHARGE, unit_price: 999_999.99, qty: 99 }],
      ...bill,
    },
    { role: 'cashier', sub: 9 },
  );
  expect(created.status).toBe(201);
  const res = await fetch(`${t.url}/lab_bills/${created.body.bill_id}/receipt?size=${size}`, {
    headers: { authorization: `Bearer ${t.token('cashier', 9)}` },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/pdf');
  return Buffer.from(await res.arrayBuffer());
}

describe('a receipt in Sinhala, Tamil and English', () => {
  it('embeds Noto Sans, Noto Sans Sinhala and Noto Sans Tamil, and no built-in font', async () => {
    const pdf = await receipt({ patient_name: SINHALA_NAME }, '80mm');
    const fonts = tools.fonts(pdf);
    for (const name of ['NotoSans-Regular', 'NotoSans-Bold', 'NotoSansSinhala-Regular', 'NotoSansTamil-Regular'])
      expect(fonts).toContainEqual({ name, embedded: true });
    expect(fonts.filter((f) => !f.embedded)).toEqual([]);
    const text = tools.words(pdf).words.map((w) => w.text);
    expect(text.join(' ')).not.toContain('?');
    expect(text).toEqual(expect.arrayContaining(['Patient', 'Billed', '0771234567']));
  });

  it('gives back every name as written to pdftotext: conjuncts, a repaya, split and reordered vowel signs', async () => {
    const names = ['කමල් පෙරේරා', 'සුනිල් ආර්‍යරත්න', 'முருகன் சொக்கலிங்கம்', 'ශ්‍රී ලංකා කොළඹ'];
    for (const name of names) {
      const text = tools.text(await receipt({ patient_name: name }, '80mm'), '-layout');
      expect({ name, copied: text.includes(`Patient ${name}`) }).toEqual({ name, copied: true });
      expect(text).toContain(`Billed by ${TAMIL_USER}`);
    }
  });

  it.each([
    [
      'Sinhala (a repaya, a ZWJ conjunct, vowel signs before and after)',
      SINHALA_NAME,
      'Patient',
      'noto-sans-sinhala',
      'NotoSansSinhala_400Regular',
    ],
    ['Tamil (split vowel sign ொ, pulli)', TAMIL_USER, 'Billed', 'noto-sans-tamil', 'NotoSansTamil_400Regular'],
  ])('prints %s as hb-view draws it', async (_script, text, label, pkg, file) => {
    const pdf = await receipt({ patient_name: SINHALA_NAME }, '80mm');
    const { words } = tools.words(pdf);
    // The label's last word (`Billed by`: its `by`), then the value's column right of it.
    const at = words.findIndex((w, i) => w.text === label && (label !== 'Billed' || words[i + 1]?.text === 'by'));
    const line = label === 'Billed' ? words[at + 1]! : words[at]!;
    expectDrawnAsHbView(tools, pdf, line, text, { pkg, file, size: 8 });
  });

  it.each(['80mm', 'a5'] as const)(
    'wraps a 200-character name, a long charge and a long note without printing a word over another (%s)',
    async (size) => {
      const name = `${'Wickramasinghe Arachchige Don ජයවර්ධන முருகன் '.repeat(5)}`.slice(0, 200);
      const pdf = await receipt(
        { patient_name: name, notes: `${'ශ්‍රී ලංකා නිරෝගී වේවා நலம் பெறுக get well soon '.repeat(30)}`.slice(0, 2000) },
        size,
      );
      const { pages, words } = tools.words(pdf);
      expect(words.length).toBeGreaterThan(100);
      expect(overlaps(words)).toEqual([]);
      for (const word of words) {
        const { width, height } = pages[word.page - 1]!;
        expect(word.xMin >= 0 && word.xMax <= width && word.yMin >= 0 && word.yMax <= height).toBe(true);
      }
      // Every Latin word of the name is there, whole: nothing was cut off or drawn over.
      const text = words.map((w) => w.text);
      const firstPage = words.filter((w) => w.page === 1).map((w) => w.text);
      expect(firstPage.filter((w) => w === 'Arachchige').length).toBe(name.split('Arachchige').length - 1);
      expect(text).toEqual(expect.arrayContaining(['Patient', 'Contact', '0771234567', 'Full', 'differential']));
      expect(text).toContain('98,999,999.01');
    },
  );
});
