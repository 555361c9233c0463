/**
 * Indexes as the services make them (libs/service-kit ensureIndexes, each
 * service's storage/indexes.ts): created again on every start without effect,
 * unique and sparse unique indexes, the substring search option (sent to the
 * embedded server only), and the conflicts MongoDB 7 reports: the same name
 * with another key (IndexKeySpecsConflict, 86), the same key under another
 * name (IndexOptionsConflict, 85).
 */
import { ensureIndexes, escapeRegExp, type IndexSpec } from '@clinic/service-kit/internal';
import { openServer, refusal, type ConformanceServer } from './server';

let server: ConformanceServer;

beforeAll(async () => {
  server = await openServer('indexes');
});
afterAll(() => server?.stop());

const LIST: IndexSpec = {
  key: { store_id: 1, is_deleted: 1, created_at: -1, id: -1, search_text: 1 },
  name: 'bills_list_substring',
  substringSearch: true,
};

describe('indexes', () => {
  it('are created once: the same definitions again change nothing', async () => {
    const bills = server.db.collection('bills');
    const specs: IndexSpec[] = [LIST, { key: { bill_number: 1 }, name: 'bill_number_unique', unique: true }];
    await ensureIndexes(bills, specs, server.db);
    await ensureIndexes(bills, specs, server.db);
    const listed = await bills.listIndexes().toArray();
    expect(listed.map((i) => i.name).sort()).toEqual(['_id_', 'bill_number_unique', 'bills_list_substring']);
    expect(listed.find((i) => i.name === 'bill_number_unique')).toMatchObject({
      key: { bill_number: 1 },
      unique: true,
    });
    expect(listed.find((i) => i.name === 'bills_list_substring')?.key).toEqual(LIST.key);
  });

  it('with substring search answer literal searches the same on either server', async () => {
    const bills = server.db.collection<{ _id: string; [field: string]: unknown }>('searched');
    await ensureIndexes(bills, [LIST], server.db);
    const texts = ['nimal perera', 'අයේෂා පෙරේරා', 'lb-20940101-0007', 'a+b (c)'];
    await bills.insertMany(
      texts.map((search_text, i) => ({
        _id: String(i),
        id: i,
        store_id: 1,
        is_deleted: false,
        created_at: new Date(i),
        search_text,
      })),
    );
    for (const [term, expected] of [
      ['perera', [0]],
      ['පෙරේ', [1]],
      ['0101-00', [2]],
      ['a+b (c)', [3]],
      ['absent', []],
    ] as const) {
      const filter = { store_id: 1, is_deleted: false, search_text: { $regex: escapeRegExp(term) } };
      const found = await bills.find(filter).sort({ created_at: -1, id: -1 }).hint(LIST.name!).toArray();
      expect({ term, found: found.map((d) => d.id) }).toEqual({ term, found: expected });
    }
    // The option is the embedded server's own; MongoDB is never sent it (it refuses unknown index options).
    const [listed] = (await bills.listIndexes().toArray()).filter((i) => i.name === LIST.name);
    expect(listed?.substringSearch).toBe(server.ferretdb ? true : undefined);
  });

  it('refuse the same name with another key, and the same key under another name', async () => {
    const c = server.db.collection('conflicts');
    await c.createIndexes([{ key: { a: 1 }, name: 'by_a' }]);
    expect(await refusal(c.createIndexes([{ key: { b: 1 }, name: 'by_a' }]))).toMatchObject({ code: 86 });
    expect(await refusal(c.createIndexes([{ key: { a: 1 }, name: 'a_again' }]))).toMatchObject({ code: 85 });
  });

  it('that are unique and sparse let many documents lack the field, and refuse a repeated value', async () => {
    const c = server.db.collection('idempotency');
    await ensureIndexes(c, [
      { key: { idempotency_key: 1 }, name: 'idempotency_key_unique', unique: true, sparse: true },
    ]);
    await c.insertMany([{ _id: '1' }, { _id: '2' }, { _id: '3', idempotency_key: 'k1' }] as never[]);
    expect(await refusal(c.insertOne({ _id: '4', idempotency_key: 'k1' } as never))).toMatchObject({ code: 11000 });
    expect(await c.countDocuments({})).toBe(3);
  });
});
