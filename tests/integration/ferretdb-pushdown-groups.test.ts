/**
 * The embedded server answers queries from indexes (tools/ferretdb/patches/0004):
 * explain shows each kind of query pushed down, which the unpatched server does
 * not do, and every answer is the one MongoDB's rules give, checked against a
 * reference evaluation of the same documents here. Also 0005 (a $group's
 * accumulators each read every document) and 0015 (a sorted page of an $in
 * merged from each value's rows in index order), 0018 (substring search asked for by an
 * index option, through libs/service-kit's ensureIndexes).
 */
import { db, rows, docs, explain, compare, ids } from './ferretdb-pushdown-stack';

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
