/**
 * The embedded server answers queries from indexes (tools/ferretdb/patches/0004):
 * explain shows each kind of query pushed down, which the unpatched server does
 * not do, and every answer is the one MongoDB's rules give, checked against a
 * reference evaluation of the same documents here. Also 0005 (a $group's
 * accumulators each read every document) and 0015 (a sorted page of an $in
 * merged from each value's rows in index order), 0018 (substring search asked for by an
 * index option, through libs/service-kit's ensureIndexes).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, type Collection, type Db, type Document } from 'mongodb';
import { startLocalInfrastructure, type Infrastructure } from '@clinic/devstack';
import { ensureIndexes } from '@clinic/service-kit/internal';

interface Row {
  _id: string;
  n: number;
  store: number;
  state: string;
  at: Date;
  amount: number;
  flag: boolean;
  text: string;
  note?: string;
}

let dir: string;
let infra: Infrastructure;
let mongo: MongoClient;
let db: Db;
let rows: Collection<Row>;
const docs: Row[] = [];

const WORDS = [
  'nimal fernando',
  'ayesha perera',
  '0771234567',
  'lb-20260602-0042',
  'x*y?',
  'Élan',
  'silva',
  '901234567v',
  'a',
];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'clinic-pushdown-'));
  infra = await startLocalInfrastructure({ dataDir: dir, logDir: join(dir, 'logs') });
  mongo = await MongoClient.connect(infra.mongoUrl, { serverSelectionTimeoutMS: 2000 });
  db = mongo.db('pushdown_test');
  rows = db.collection<Row>('rows');
  for (let n = 0; n < 600; n++) {
    docs.push({
      _id: String(n),
      n,
      store: n % 3,
      state: n % 7 === 0 ? 'cancelled' : 'active',
      at: new Date(Date.UTC(2090, 0, 1) + (n % 50) * 3_600_000),
      amount: (n * 37) % 1000,
      flag: n % 2 === 0,
      text: `${WORDS[n % WORDS.length]} ${WORDS[(n * 7) % WORDS.length]} ${n}`,
      ...(n % 5 === 0 ? { note: 'unindexed' } : {}),
    });
  }
  // Half before the indexes (built over existing rows), half after (kept by the writes).
  await rows.insertMany(docs.slice(0, 300));
  await rows.createIndexes([{ key: { store: 1, state: 1, at: -1, n: -1 }, name: 'by_store' }]);
  await ensureIndexes(
    rows,
    [{ key: { store: 1, state: 1, at: -1, n: -1, text: 1 }, name: 'by_text', substringSearch: true }],
    db,
  );
  await rows.createIndexes([{ key: { amount: 1, flag: 1 }, name: 'by_amount' }]);
  await rows.insertMany(docs.slice(300));
});
afterAll(async () => {
  await mongo?.close();
  await infra?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function explain(command: Document): Promise<Document> {
  return db.command({ explain: command });
}

/** MongoDB's order within one type: enough for the numbers, strings, dates and booleans here. */
function compare(a: unknown, b: unknown): number {
  const key = (v: unknown) => (v instanceof Date ? v.getTime() : v);
  const [x, y] = [key(a), key(b)] as [number | string | boolean, number | string | boolean];
  return x < y ? -1 : x > y ? 1 : 0;
}

const ids = (list: Row[]) => list.map((d) => d._id);

describe('typed index keys', () => {
  it('apply equality, ranges, $in and $and exactly, with the sort, skip and limit in SQL', async () => {
    const cases: Array<{ filter: Document; match: (d: Row) => boolean }> = [
      { filter: { store: 1, state: 'active' }, match: (d) => d.store === 1 && d.state === 'active' },
      {
        filter: { store: { $in: [0, 2] }, state: 'active', at: { $gte: new Date(Date.UTC(2090, 0, 1, 10)) } },
        match: (d) => d.store !== 1 && d.state === 'active' && d.at >= new Date(Date.UTC(2090, 0, 1, 10)),
      },
      {
        filter: { $and: [{ store: 2 }, { state: { $eq: 'cancelled' } }] },
        match: (d) => d.store === 2 && d.state === 'cancelled',
      },
      {
        filter: { amount: { $gt: 100, $lte: 500 }, flag: true },
        match: (d) => d.amount > 100 && d.amount <= 500 && d.flag,
      },
      // A string bound never selects numbers: MongoDB compares within a type.
      { filter: { amount: { $gt: '' } }, match: () => false },
    ];
    for (const { filter, match } of cases) {
      const sorted = docs.filter(match).sort((a, b) => compare(b.at, a.at) || b.n - a.n);
      const found = await rows.find(filter).sort({ at: -1, n: -1 }).skip(3).limit(7).toArray();
      expect(ids(found)).toEqual(ids(sorted.slice(3, 10)));
      expect(await rows.countDocuments(filter)).toBe(sorted.length);
    }
    const plan = await explain({
      find: 'rows',
      filter: { store: 1, state: 'active' },
      sort: { at: -1, n: -1 },
      skip: 3,
      limit: 7,
    });
    expect(plan).toMatchObject({ filterPushdown: true, filterExact: true, sortPushdown: true, limitPushdown: true });
    expect(JSON.stringify(plan.queryPlanner)).toContain('by_store');
  });

  it('reads a sorted page of an $in value by value in index order, merged, exactly as one sorted read (patch 0015)', async () => {
    const date = (hour: number) => new Date(Date.UTC(2090, 0, 1, hour));
    const cases: Array<{ filter: Document; match: (d: Row) => boolean }> = [
      { filter: { store: 1, state: { $in: ['active', 'cancelled'] } }, match: (d) => d.store === 1 },
      // A value twice and a value no document holds.
      {
        filter: { store: 2, state: { $in: ['cancelled', 'active', 'cancelled', 'none'] } },
        match: (d) => d.store === 2,
      },
      // More conditions, on the sorted field too.
      {
        filter: {
          store: 0,
          state: { $in: ['active', 'cancelled'] },
          at: { $gte: date(10), $lt: date(40) },
          flag: true,
        },
        match: (d) => d.store === 0 && d.at >= date(10) && d.at < date(40) && d.flag,
      },
    ];
    const merged = (plan: Document) => JSON.stringify(plan.queryPlanner).includes('COMPOUND QUERY');
    for (const { filter, match } of cases) {
      for (const direction of [-1, 1] as const) {
        const sorted = docs.filter(match).sort((a, b) => direction * (compare(a.at, b.at) || a.n - b.n));
        for (const skip of [0, 3, 60, 500]) {
          const found = await rows
            .find(filter)
            .sort({ at: direction, n: direction })
            .skip(skip)
            .limit(7)
            .hint('by_store')
            .toArray();
          expect({ filter, direction, skip, ids: ids(found) }).toEqual({
            filter,
            direction,
            skip,
            ids: ids(sorted.slice(skip, skip + 7)),
          });
        }
        const plan = await explain({
          find: 'rows',
          filter,
          sort: { at: direction, n: direction },
          skip: 3,
          limit: 7,
          hint: 'by_store',
        });
        expect(plan).toMatchObject({ filterExact: true, sortPushdown: true, limitPushdown: true });
        expect(merged(plan)).toBe(true);
      }
    }
    // A sort the index does not keep after the $in field (mixed directions) is one sorted read, as before.
    const mixed = { find: 'rows', filter: cases[0]!.filter, sort: { at: -1, n: 1 }, limit: 7, hint: 'by_store' };
    expect(merged(await explain(mixed))).toBe(false);
    const found = await rows.find(cases[0]!.filter).sort({ at: -1, n: 1 }).limit(7).hint('by_store').toArray();
    expect(ids(found)).toEqual(
      ids(
        docs
          .filter(cases[0]!.match)
          .sort((a, b) => compare(b.at, a.at) || a.n - b.n)
          .slice(0, 7),
      ),
    );
  });

  it('pages a merged $in whose sort keys tie without repeating or skipping a document (patch 0015)', async () => {
    // Many documents share a sort key: the pages of one query must still cover each document once.
    // The index keys more after the sorted fields: ties come in that key's order, then the documents' order.
    const tied = db.collection<{ _id: string; g: number; day: number; at: number; k: number; m: number }>('tied');
    await tied.insertMany(
      Array.from({ length: 120 }, (_, i) => ({
        _id: `t${i}`,
        g: 1,
        day: i % 3,
        at: Math.floor(i / 60),
        k: i % 2,
        m: (119 - i) % 7,
      })),
    );
    await tied.createIndex({ g: 1, day: 1, at: -1, k: 1, m: 1 }, { name: 'by_day' });
    for (const direction of [-1, 1] as const) {
      const filter = { g: 1, day: { $in: [2, 0, 1] } };
      const sort = { at: direction, k: direction === 1 ? -1 : 1 } as const;
      const pages: string[] = [];
      for (let skip = 0; skip < 120; skip += 7) {
        const page = await tied.find(filter).sort(sort).skip(skip).limit(7).hint('by_day').toArray();
        pages.push(...page.map((d) => d._id));
        expect(page.map((d) => d.at)).toEqual([...page.map((d) => d.at)].sort((a, b) => direction * (a - b)));
      }
      expect(pages).toHaveLength(120);
      expect(new Set(pages).size).toBe(120);
      const plan = await explain({ find: 'tied', filter, sort, skip: 7, limit: 7, hint: 'by_day' });
      expect(JSON.stringify(plan.queryPlanner)).toContain('COMPOUND QUERY');
    }
  });

  it('applies a sort on one field before its skip and limit (patch 0016)', async () => {
    for (const direction of [1, -1] as const) {
      const sorted = docs.filter((d) => d.store === 1).sort((a, b) => direction * (a.amount - b.amount) || a.n - b.n);
      const found = await rows.find({ store: 1 }).sort({ amount: direction }).skip(4).limit(5).toArray();
      // amount has ties: compare the amounts, which any correct order gives.
      expect(found.map((d) => d.amount)).toEqual(sorted.slice(4, 9).map((d) => d.amount));
      const top = await rows.find({ store: 2 }).sort({ at: direction }).limit(3).toArray();
      const expected = docs.filter((d) => d.store === 2).sort((a, b) => direction * compare(a.at, b.at));
      expect(top.map((d) => d.at.getTime())).toEqual(expected.slice(0, 3).map((d) => d.at.getTime()));
    }
  });

  it('leaves to the handler what it cannot write in SQL, and says so', async () => {
    const plan = await explain({ find: 'rows', filter: { store: 1, note: 'unindexed' }, limit: 5 });
    expect(plan).toMatchObject({ filterPushdown: true, filterExact: false, limitPushdown: false });
    const found = await rows.find({ store: 1, note: 'unindexed' }).sort({ n: 1 }).toArray();
    expect(ids(found)).toEqual(ids(docs.filter((d) => d.store === 1 && d.note === 'unindexed')));
  });

  it('uses the index a hint names', async () => {
    const plan = await explain({ find: 'rows', filter: { store: 1, state: 'active' }, hint: 'by_text' });
    expect(JSON.stringify(plan.queryPlanner)).toContain('by_text');
  });

  it('refuses an array or a document in an indexed field, as multikey indexes are not supported', async () => {
    await expect(rows.insertOne({ _id: 'array', store: [1, 2] } as never)).rejects.toThrow(
      /cannot index field "store"/,
    );
    await expect(rows.updateOne({ _id: '1' }, { $set: { state: { nested: true } } } as never)).rejects.toThrow(
      /cannot index field "state"/,
    );
    expect(await rows.findOne({ _id: '1' })).toMatchObject({ state: docs[1]!.state });
    expect(await rows.findOne({ _id: 'array' })).toBeNull();
  });
});

describe('counts and groups', () => {
  it('are computed from the index, with every accumulator (patch 0005)', async () => {
    const pipeline = [
      { $match: { store: 2, state: 'active' } },
      { $group: { _id: { s: '$store', f: '$flag' }, count: { $sum: 1 }, total: { $sum: '$amount' } } },
    ];
    const plan = await explain({ aggregate: 'rows', pipeline, cursor: {} });
    expect(plan).toMatchObject({ aggregatePushdown: true });
    const groups = (await rows.aggregate(pipeline).toArray()).sort((a, b) => Number(a._id.f) - Number(b._id.f));
    const expected = [false, true].map((f) => {
      const members = docs.filter((d) => d.store === 2 && d.state === 'active' && d.flag === f);
      return { _id: { s: 2, f }, count: members.length, total: members.reduce((sum, d) => sum + d.amount, 0) };
    });
    expect(groups).toEqual(expected);
  });

  it('groups in the handler what the index cannot serve, still with every accumulator', async () => {
    const pipeline = [
      { $match: { note: 'unindexed' } },
      { $group: { _id: '$store', count: { $sum: 1 }, total: { $sum: '$amount' } } },
    ];
    expect(await explain({ aggregate: 'rows', pipeline, cursor: {} })).toMatchObject({ aggregatePushdown: false });
    const groups = (await rows.aggregate(pipeline).toArray()).sort((a, b) => a._id - b._id);
    expect(groups).toEqual(
      [0, 1, 2]
        .map((store) => {
          const members = docs.filter((d) => d.store === store && d.note === 'unindexed');
          return { _id: store, count: members.length, total: members.reduce((sum, d) => sum + d.amount, 0) };
        })
        .filter((g) => g.count > 0),
    );
  });
});

describe('substring indexes', () => {
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

  it('find exactly the texts holding a literal, from the search table when it is selective', async () => {
    const terms = ['0771234567', 'lb-20260602-0042', 'x*y?', 'Élan', 'nando ay', 'silva', 'a', '9012', 'absent'];
    for (const term of terms) {
      for (const store of [0, 1]) {
        const filter = { store, state: 'active', text: { $regex: literal(term) } };
        const expected = docs
          .filter((d) => d.store === store && d.state === 'active' && d.text.includes(term))
          .sort((a, b) => compare(b.at, a.at) || b.n - a.n);
        expect({ term, found: ids(await rows.find(filter).sort({ at: -1, n: -1 }).limit(15).toArray()) }).toEqual({
          term,
          found: ids(expected.slice(0, 15)),
        });
        expect({ term, count: await rows.countDocuments(filter) }).toEqual({ term, count: expected.length });
      }
    }
    const selective = await explain({
      find: 'rows',
      filter: { store: 1, state: 'active', text: { $regex: literal('lb-20260602-0042') } },
      sort: { at: -1, n: -1 },
      limit: 5,
    });
    expect(selective).toMatchObject({ filterExact: true, sortPushdown: true, limitPushdown: true });
    expect(JSON.stringify(selective.queryPlanner)).toContain('VIRTUAL TABLE');
  });

  it('follows updates and deletes of the documents', async () => {
    await rows.updateOne({ _id: '10' }, { $set: { text: 'renamed patient zzyzx' } });
    await rows.deleteOne({ _id: '11' });
    const zz = await rows.find({ store: docs[10]!.store, state: docs[10]!.state, text: { $regex: 'zzyzx' } }).toArray();
    expect(ids(zz)).toEqual(['10']);
    const gone = docs[11]!;
    const holding = await rows
      .find({ store: gone.store, state: gone.state, text: { $regex: literal(gone.text) } })
      .toArray();
    const expected = docs.filter(
      (d) =>
        d._id !== '11' &&
        d._id !== '10' &&
        d.store === gone.store &&
        d.state === gone.state &&
        d.text.includes(gone.text),
    );
    expect(ids(holding).sort()).toEqual(ids(expected).sort());
  });

  it('are asked for by the substringSearch option, not by a name', async () => {
    await rows.createIndexes([{ key: { store: 1, text: 1 }, name: 'store_text_substring' }]);
    const listed = await rows.listIndexes().toArray();
    expect(listed.find((i) => i.name === 'by_text')).toMatchObject({ substringSearch: true });
    expect(listed.find((i) => i.name === 'store_text_substring')).not.toHaveProperty('substringSearch');
    // The same index with the other choice is refused, as MongoDB refuses a change of its own options.
    await expect(
      db.command({
        createIndexes: 'rows',
        indexes: [{ key: { store: 1, text: 1 }, name: 'store_text_substring', substringSearch: true }],
      }),
    ).rejects.toMatchObject({ codeName: 'IndexOptionsConflict' });
    await rows.dropIndex('store_text_substring');
  });
});
