/**
 * The cash office's reads (billing's storage/shift-holds.ts and
 * shifts.ts): the document a hold names, found by whichever of its paths
 * holds the entry (an array of subdocuments, or one subdocument); a shift's
 * drawer summed per kind and method; a branch's live shifts up to a day.
 * Expected as MongoDB 7 answers them.
 */
import type { Collection, Document } from 'mongodb';
import { openServer, type ConformanceServer } from './server';

let server: ConformanceServer;
let owners: Collection<Document & { _id: string }>;
let ledger: Collection<Document & { _id: string }>;
let shifts: Collection<Document & { _id: string }>;

beforeAll(async () => {
  server = await openServer('cash_office');
  owners = server.db.collection('owners');
  ledger = server.db.collection('bill_ledger');
  shifts = server.db.collection('shifts');
  await owners.insertMany([
    { _id: '1', ledger: [{ id: 'e1' }, { id: 'e2' }] },
    { _id: '2', current: { id: 's1' }, reversed: [{ id: 's0' }] },
    { _id: '3', current: null, reversed: [] },
  ]);
  await ledger.insertMany([
    { _id: 'a', shift_id: 4, kind: 'payment', method: 'Cash', amount_cents: 1000 },
    { _id: 'b', shift_id: 4, kind: 'payment', method: 'Cash', amount_cents: 250 },
    { _id: 'c', shift_id: 4, kind: 'refund', method: 'Cash', amount_cents: 100 },
    { _id: 'd', shift_id: 4, kind: 'payment', method: 'Card', amount_cents: 500 },
    { _id: 'e', shift_id: 5, kind: 'payment', method: 'Cash', amount_cents: 7 },
    { _id: 'f', kind: 'payment', method: 'Cash', amount_cents: 9 },
  ]);
  await ledger.createIndex({ shift_id: 1, kind: 1, method: 1, amount_cents: 1 }, { name: 'bill_ledger_by_shift' });
  await shifts.insertMany([
    { _id: '1', store_id: 1, live: true, day: '2092-01-01' },
    { _id: '2', store_id: 1, live: true, day: '2092-01-03' },
    { _id: '3', store_id: 1, live: false, day: '2092-01-01' },
    { _id: '4', store_id: 2, live: true, day: '2092-01-01' },
  ]);
  await shifts.createIndex({ store_id: 1, live: 1, day: 1 }, { name: 'shifts_live' });
}, 60_000);
afterAll(() => server?.stop());

const holding = (key: string, paths: string[], id: string) =>
  owners.countDocuments({ _id: key, $or: paths.map((path) => ({ [path]: id })) });

it('finds the document a hold names by whichever of its paths holds the entry', async () => {
  expect(await holding('1', ['ledger.id'], 'e2')).toBe(1);
  expect(await holding('1', ['ledger.id'], 'e3')).toBe(0);
  expect(await holding('2', ['current.id', 'reversed.id'], 's1')).toBe(1);
  expect(await holding('2', ['current.id', 'reversed.id'], 's0')).toBe(1);
  expect(await holding('3', ['current.id', 'reversed.id'], 's1')).toBe(0);
  expect(await holding('2', ['ledger.id'], 's1')).toBe(0);
});

it("sums a shift's drawer per kind and method, with its index", async () => {
  const rows = await ledger
    .aggregate<{ _id: { k: string; m: string }; a: number }>(
      [{ $match: { shift_id: 4 } }, { $group: { _id: { k: '$kind', m: '$method' }, a: { $sum: '$amount_cents' } } }],
      { hint: 'bill_ledger_by_shift' },
    )
    .toArray();
  expect(rows.map((r) => [r._id.k, r._id.m, r.a]).sort()).toEqual([
    ['payment', 'Card', 500],
    ['payment', 'Cash', 1250],
    ['refund', 'Cash', 100],
  ]);
  expect(await ledger.find({ _id: { $in: ['a', 'x', 'c'] } }, { projection: { _id: 1 } }).toArray()).toEqual([
    { _id: 'a' },
    { _id: 'c' },
  ]);
});

it("finds a branch's live shifts that opened on a day or before", async () => {
  const live = await shifts
    .find({ store_id: 1, live: true, day: { $lte: '2092-01-02' } })
    .hint('shifts_live')
    .toArray();
  expect(live.map((s) => s._id)).toEqual(['1']);
});
