/**
 * The aggregations the services run: [$match, $group] with a field or a
 * document of fields as the group key, `$sum: 1` and `$sum: '$field'`, several
 * accumulators at once, and a hint (billing's day totals, day-end report,
 * drawer and migrations). Expected as MongoDB 7 documents $group and $sum:
 * one document per distinct key, and $sum ignores missing and non-numeric values.
 */
import type { Collection, Document } from 'mongodb';
import { openServer, type ConformanceServer } from './server';

interface Entry {
  _id: string;
  store_id: number;
  day: string;
  method: string;
  kind: string;
  amount_cents?: number | string;
}

let server: ConformanceServer;
let ledger: Collection<Entry>;

const ENTRIES: Entry[] = [
  { _id: '1', store_id: 1, day: '2092-01-01', method: 'Cash', kind: 'payment', amount_cents: 1000 },
  { _id: '2', store_id: 1, day: '2092-01-01', method: 'Cash', kind: 'payment', amount_cents: 250 },
  { _id: '3', store_id: 1, day: '2092-01-01', method: 'Card', kind: 'payment', amount_cents: 4000 },
  { _id: '4', store_id: 1, day: '2092-01-01', method: 'Cash', kind: 'refund', amount_cents: -300 },
  { _id: '5', store_id: 1, day: '2092-01-02', method: 'Cash', kind: 'payment', amount_cents: 70 },
  { _id: '6', store_id: 2, day: '2092-01-01', method: 'Cash', kind: 'payment', amount_cents: 999 },
  { _id: '7', store_id: 1, day: '2092-01-01', method: 'Cash', kind: 'payment', amount_cents: 5 },
  { _id: '8', store_id: 1, day: '2092-01-01', method: 'Card', kind: 'payment' },
  { _id: '9', store_id: 1, day: '2092-01-01', method: 'Card', kind: 'payment', amount_cents: 'n/a' },
];

beforeAll(async () => {
  server = await openServer('aggregations');
  ledger = server.db.collection<Entry>('ledger');
  await ledger.insertMany(ENTRIES);
  await ledger.createIndexes([{ key: { store_id: 1, day: 1, method: 1, kind: 1, amount_cents: 1 }, name: 'by_day' }]);
});
afterAll(() => server?.stop());

const byKey = (a: Document, b: Document) => JSON.stringify(a._id).localeCompare(JSON.stringify(b._id));

describe('$match then $group', () => {
  it('groups by a document of fields, summing a field and counting', async () => {
    const groups = await ledger
      .aggregate(
        [
          { $match: { store_id: 1, day: '2092-01-01' } },
          { $group: { _id: { m: '$method', k: '$kind' }, a: { $sum: '$amount_cents' }, n: { $sum: 1 } } },
        ],
        { hint: 'by_day' },
      )
      .toArray();
    expect(groups.sort(byKey)).toEqual(
      [
        { _id: { m: 'Card', k: 'payment' }, a: 4000, n: 3 },
        { _id: { m: 'Cash', k: 'payment' }, a: 1255, n: 3 },
        { _id: { m: 'Cash', k: 'refund' }, a: -300, n: 1 },
      ].sort(byKey),
    );
  });

  it('groups by one field, every accumulator reading every document of its group', async () => {
    const groups = await ledger
      .aggregate([
        { $match: { store_id: 1, kind: 'payment' } },
        { $group: { _id: '$day', n: { $sum: 1 }, total: { $sum: '$amount_cents' }, again: { $sum: '$amount_cents' } } },
      ])
      .toArray();
    expect(groups.sort(byKey)).toEqual([
      { _id: '2092-01-01', n: 6, total: 5255, again: 5255 },
      { _id: '2092-01-02', n: 1, total: 70, again: 70 },
    ]);
  });

  it('groups the whole collection by a document key, as the migrations count bills per branch and day', async () => {
    const groups = await ledger
      .aggregate([{ $group: { _id: { s: '$store_id', d: '$day' }, n: { $sum: 1 } } }])
      .toArray();
    expect(groups.sort(byKey)).toEqual(
      [
        { _id: { s: 1, d: '2092-01-01' }, n: 7 },
        { _id: { s: 1, d: '2092-01-02' }, n: 1 },
        { _id: { s: 2, d: '2092-01-01' }, n: 1 },
      ].sort(byKey),
    );
  });

  it('answers no group for a $match that matches nothing', async () => {
    const groups = await ledger
      .aggregate([{ $match: { store_id: 3 } }, { $group: { _id: '$day', n: { $sum: 1 } } }])
      .toArray();
    expect(groups).toEqual([]);
  });
});
