/**
 * GET /lab_bills/export through the gateway: CSV and Excel files
 * parsed back (csv-parse, exceljs's reader) equal the list's rows and the
 * bills' items; text that a spreadsheet would take for a formula comes out
 * inert; the list's filters, branch scope and roles apply; and over NATS
 * billing answers in pages of at most EXPORT_PAGE_BILLS bills.
 */
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { headers as natsHeaders } from 'nats';
import { EXPORT_BILL_COLUMNS, EXPORT_ITEM_COLUMNS, EXPORT_PAGE_BILLS } from '@clinic/contracts';
import { branch, chargeIn } from './fixtures';
import { failureOf, fileStack } from './harness';

const t = fileStack({
  stores: [branch(1, 'Colombo'), branch(2, 'Kandy')],
  users: [{ id: 7, name: 'කසුන් සිල්වා' }],
});
const charges: number[] = [];
const DATES = ['2091-05-01', '2091-05-02', '2091-05-04'];
const RANGE = 'store_id=1&from=2091-05-01&to=2091-05-04';
const TRICKY_NAMES = [
  '=HYPERLINK("http://evil.example","click")',
  '+SUM(1,2)',
  '-2+3',
  '@cmd',
  'සුනිල් පෙරේරා, "Sunil"',
  'முருகன்\nline two',
];

beforeAll(async () => {
  for (const [name, amount] of [
    ['CBC', 850],
    ['Lipid Profile', 2400.5],
  ] as const)
    charges.push(await chargeIn(t, 1, name, amount));
  // More bills than two pages hold, over three dates with a day between, and some outside the export.
  const bills = Array.from({ length: 2 * EXPORT_PAGE_BILLS + 40 }, (_, i) => ({
    patient_name: TRICKY_NAMES[i % 40] ?? `Patient ${i}`,
    patient_contact: i % 3 === 0 ? '+94771234567' : '0771234567',
    bill_date: DATES[i % 3],
    store_id: 1,
    billed_by: 7,
    payment_method: (['Cash', 'Card', 'Online'] as const)[i % 3],
    payment_status: i % 4 === 0 ? 'Pending' : 'Paid',
    discount_type: 'pct',
    discount_value: i % 5,
    notes: i % 7 === 0 ? '=1+1 note' : null,
    items: [
      { charge_id: charges[0], charge_name: 'CBC', unit_price: 850, qty: 1 + (i % 3) },
      ...(i % 2 ? [{ charge_id: charges[1], charge_name: 'Lipid Profile', unit_price: 2400.5, qty: 1 }] : []),
    ],
  }));
  for (let i = 0; i < bills.length; i += 20)
    await Promise.all(
      bills.slice(i, i + 20).map(async (bill) => expect((await t.post('/lab_bills', bill)).status).toBe(201)),
    );
  const outside = { ...bills[1]!, bill_date: '2091-05-05' };
  expect((await t.post('/lab_bills', outside)).status).toBe(201);
  const cancelled = await t.post('/lab_bills', bills[2]);
  expect((await t.del(`/lab_bills/${cancelled.body.bill_id}`)).status).toBe(200);
}, 120_000);

/** Every bill the list shows for a query, page by page, by id. */
async function listed(query: string): Promise<Array<Record<string, any>>> {
  const rows: Array<Record<string, any>> = [];
  for (let page = 1; ; page++) {
    const res = await t.get(`/lab_bills?${query}&per_page=100&page=${page}`);
    rows.push(...res.body.bills);
    if (page >= res.body.pages) return rows.sort((a, b) => a.id - b.id);
  }
}

async function download(query: string, role = 'cashier') {
  const res = await fetch(`${t.url}/lab_bills/export?${query}`, {
    headers: { authorization: `Bearer ${t.token(role, 7)}` },
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Text a spreadsheet evaluates: =, @, a tab or line break first, or + or - before anything but a plain number. */
const FORMULA = /^[=@\t\r\n]|^[+-](?![0-9]+(\.[0-9]+)?$)/;

/** A list value as the CSV writes it: amounts with two decimals, null empty, formula-like text behind a quote. */
function csvOf(type: string, value: unknown): string {
  if (value === null) return '';
  if (type === 'money') return Number(value).toFixed(2);
  const text = String(value);
  return type === 'text' && FORMULA.test(text) ? `'${text}` : text;
}

describe('GET /lab_bills/export', () => {
  it('writes CSV (RFC 4180, UTF-8 with a BOM) whose rows equal the list, formulas made inert', async () => {
    const res = await download(`${RANGE}&format=csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="bills-1-2091-05-01_2091-05-04.csv"');
    expect([...res.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = res.bytes.toString('utf8');
    expect(text.split('\r\n')[0]).toBe(`\ufeff${EXPORT_BILL_COLUMNS.map((c) => c.key).join(',')}`);
    const rows: Array<Record<string, string>> = parse(res.bytes, {
      bom: true,
      columns: true,
      record_delimiter: '\r\n',
    });
    const list = await listed(RANGE.replace('from=', 'from_date=').replace('to=', 'to_date='));
    expect(list).toHaveLength(2 * EXPORT_PAGE_BILLS + 40);
    expect(rows.map((r) => Number(r.id)).sort((a, b) => a - b)).toEqual(list.map((b) => b.id));
    const byId = new Map(list.map((bill) => [bill.id, bill]));
    for (const row of rows) {
      const bill = byId.get(Number(row.id))!;
      for (const column of EXPORT_BILL_COLUMNS)
        expect([column.key, row[column.key]]).toEqual([column.key, csvOf(column.type, bill[column.key])]);
    }
    const names = rows.map((r) => r.patient_name);
    expect(names).toContain(`'=HYPERLINK("http://evil.example","click")`);
    expect(names).toContain("'-2+3");
    expect(names).toContain('සුනිල් පෙරේරා, "Sunil"');
    expect(names.filter((name) => FORMULA.test(name!))).toEqual([]);
    expect(rows.every((r) => !FORMULA.test(r.notes!))).toBe(true);
  });

  it('writes Excel: a sheet of bills with typed dates and amounts equal to the list, and one of their items', async () => {
    const res = await download(`${RANGE}&format=xlsx`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(res.bytes as never);
    const [bills, items] = [book.getWorksheet('Bills')!, book.getWorksheet('Items')!];
    const list = await listed(RANGE.replace('from=', 'from_date=').replace('to=', 'to_date='));
    const read = (sheet: ExcelJS.Worksheet, columns: typeof EXPORT_BILL_COLUMNS) => {
      expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(columns.map((c) => c.key));
      const rows: Array<Record<string, ExcelJS.Cell>> = [];
      sheet.eachRow((row, n) => {
        if (n > 1) rows.push(Object.fromEntries(columns.map((c, i) => [c.key, row.getCell(i + 1)])));
      });
      return rows;
    };
    const billRows = read(bills, EXPORT_BILL_COLUMNS);
    expect(billRows.map((r) => r.id!.value).sort((a: any, b: any) => a - b)).toEqual(list.map((b) => b.id));
    const byId = new Map(list.map((bill) => [bill.id, bill]));
    for (const row of billRows) {
      const bill = byId.get(row.id!.value as number)!;
      for (const column of EXPORT_BILL_COLUMNS) {
        const cell = row[column.key]!;
        const expected = bill[column.key];
        if (expected === null) expect([column.key, cell.value]).toEqual([column.key, null]);
        else if (column.type === 'date' || column.type === 'datetime') {
          expect(cell.type).toBe(ExcelJS.ValueType.Date);
          expect((cell.value as Date).toISOString().replace('T', ' ').slice(0, String(expected).length)).toBe(expected);
        } else if (column.type === 'text') {
          // A string cell, never a formula: Excel does not evaluate it, so it is written as it is.
          expect([column.key, cell.type, cell.value]).toEqual([column.key, ExcelJS.ValueType.String, expected]);
        } else expect([column.key, cell.type, cell.value]).toEqual([column.key, ExcelJS.ValueType.Number, expected]);
      }
    }
    expect(billRows.some((r) => r.patient_name!.value === '=HYPERLINK("http://evil.example","click")')).toBe(true);
    expect(billRows.every((r) => r.patient_name!.formula === undefined)).toBe(true);
    expect(billRows[0]!.grand_total!.numFmt).toBe('#,##0.00');
    expect(billRows[0]!.bill_date!.numFmt).toBe('yyyy-mm-dd');

    const itemRows = read(items, EXPORT_ITEM_COLUMNS as never);
    // Read 20 at a time, as the bills were made: hundreds at once would meet the gateway's timeout on a busy machine.
    const read20 = async (from: number) =>
      Promise.all(
        list.slice(from, from + 20).map(async (b) => {
          const res = await t.get(`/lab_bills/${b.id}`);
          expect(res.status).toBe(200);
          return res.body.bill;
        }),
      );
    const fetched: Array<Record<string, any>> = [];
    for (let i = 0; i < list.length; i += 20) fetched.push(...(await read20(i)));
    const expectedItems = fetched.flatMap((bill) =>
      bill.items.map((item: any) => ({ ...item, bill_number: bill.bill_number, bill_date: bill.bill_date })),
    );
    const plain = (cell: ExcelJS.Cell) =>
      cell.value instanceof Date ? cell.value.toISOString().slice(0, 10) : cell.value;
    expect(
      itemRows
        .map((r) => Object.fromEntries(EXPORT_ITEM_COLUMNS.map((c) => [c.key, plain(r[c.key]!)])))
        .sort((a: any, b: any) => a.id - b.id),
    ).toEqual(
      expectedItems
        .map((i) => Object.fromEntries(EXPORT_ITEM_COLUMNS.map((c) => [c.key, i[c.key]])))
        .sort((a, b) => a.id - b.id),
    );
  });

  it("applies the list's filters", async () => {
    for (const filters of ['payment_method=Cash', 'payment_status=Pending', 'search=hyperlink', 'date=2091-05-02']) {
      const query = filters.startsWith('date') ? `store_id=1&${filters}` : `${RANGE}&${filters}`;
      const rows = parse((await download(`${query}&format=csv`)).bytes, {
        bom: true,
        columns: true,
        relax_quotes: false,
      });
      const list = await listed(query.replace('from=', 'from_date=').replace('to=', 'to_date='));
      expect({ filters, ids: rows.map((r: any) => Number(r.id)).sort((a: number, b: number) => a - b) }).toEqual({
        filters,
        ids: list.map((b) => b.id),
      });
      expect(list.length).toBeGreaterThan(0);
    }
  });

  it('ignores the paging parameters of the NATS subject when they come over HTTP: the file is whole', async () => {
    const whole = await download(`${RANGE}&format=csv`);
    const pagedBy = await download(`${RANGE}&format=csv&part=items&cursor=0000&as_of=2000-01-01T00:00:00.000Z`);
    expect(pagedBy.status).toBe(200);
    expect(pagedBy.bytes.equals(whole.bytes)).toBe(true);
  });

  it('refuses as the list does: bad queries, roles, other branches', async () => {
    const cases: Array<[string, string, number, string, number[]?]> = [
      [`${RANGE}`, 'cashier', 400, 'format is required.'],
      [`${RANGE}&format=pdf`, 'cashier', 400, 'format must be one of csv, xlsx.'],
      ['store_id=1&to=2091-05-04&format=csv', 'cashier', 400, 'from is required.'],
      [
        'store_id=1&from=2091-13-01&to=2091-05-04&format=csv',
        'cashier',
        400,
        'from must be a date in YYYY-MM-DD format.',
      ],
      ['from=2091-05-01&to=2091-05-04&format=csv', 'cashier', 400, 'store_id is required.'],
      [`${RANGE}&format=csv`, 'doctor', 403, 'You do not have permission to perform this action.'],
      [`${RANGE}&format=csv`, 'cashier', 403, 'Not allowed for this branch.', [2]],
    ];
    for (const [query, role, status, error, stores] of cases) {
      const res = await fetch(`${t.url}/lab_bills/export?${query}`, {
        headers: { authorization: `Bearer ${t.token(role, 7, 3600, stores)}` },
      });
      expect({ query, status: res.status, body: await res.json() }).toEqual({
        query,
        status,
        body: failureOf(error),
      });
    }
  });

  /** The bill ids of every page of an export over NATS, and how many pages it took. */
  async function pagesOver(from: string, to: string): Promise<{ seen: number[]; pages: number }> {
    const nc = await t.nats('hospital');
    const h = natsHeaders();
    h.set('authorization', `Bearer ${t.token('cashier', 7)}`);
    const seen: number[] = [];
    let [cursor, asOf, pages] = [undefined as string | undefined, undefined as string | undefined, 0];
    do {
      const query = { store_id: '1', from, to, format: 'csv', ...(cursor ? { cursor, as_of: asOf! } : {}) };
      const reply = (
        await nc.request('billing.bill.export', JSON.stringify({ query }), { headers: h, timeout: 10_000 })
      ).json<any>();
      expect(reply.status).toBe(200);
      expect(reply.body.bills.length).toBeLessThanOrEqual(EXPORT_PAGE_BILLS);
      seen.push(...reply.body.bills.map((b: { id: number }) => b.id));
      [cursor, asOf] = [reply.body.next ?? undefined, reply.body.as_of];
      pages++;
    } while (cursor);
    return { seen, pages };
  }

  it('answers over NATS in pages of at most EXPORT_PAGE_BILLS bills, each after the last', async () => {
    const { seen, pages } = await pagesOver('2091-05-01', '2091-05-04');
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(2 * EXPORT_PAGE_BILLS + 40);
  });

  it('skips the dates without bills: a range of ten thousand years takes the pages of its bills', async () => {
    const { seen, pages } = await pagesOver('0001-01-01', '9999-12-31');
    // The branch's live bills: the range's, and the one dated the day after it.
    expect(seen.length).toBe(2 * EXPORT_PAGE_BILLS + 41);
    expect(new Set(seen).size).toBe(seen.length);
    expect(pages).toBeLessThanOrEqual(4);
  });
});
