/**
 * The embedded server answers queries from indexes (tools/ferretdb/patches/0004):
 * explain shows each kind of query pushed down, which the unpatched server does
 * not do, and every answer is the one MongoDB's rules give, checked against a
 * reference evaluation of the same documents here. Also 0005 (a $group's
 * accumulators each read every document) and 0015 (a sorted page of an $in
 * merged from each value's rows in index order), 0018 (substring search asked for by an
 * index option, through libs/service-kit's ensureIndexes).
 */
import type { Document } from 'mongodb';
import { type Row, db, rows, docs, explain, compare, ids } from './ferretdb-pushdown-stack';

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
