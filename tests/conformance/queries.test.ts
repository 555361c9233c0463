/**
 * Reads as the services write them (services/{billing,catalogue,sessions}/src/storage,
 * libs/service-kit): equality, ranges, $in/$nin, null and missing fields, $exists,
 * literal and case-insensitive $regex under $or, sorts with ties, skip and limit,
 * inclusion and exclusion projections, counts and hints. Each expectation is
 * MongoDB 7's documented answer (query and projection operators, sort order).
 */
import type { Collection } from 'mongodb';
import { ensureIndexes, escapeRegExp } from '@clinic/service-kit/internal';
import { openServer, type ConformanceServer } from './server';

interface Bill {
  _id: string;
  id: number;
  store_id: number;
  bill_date: string;
  created_at: Date;
  is_deleted: boolean;
  payment_status: string;
  grand_total_cents: number;
  search_text: string;
  run_id?: string | null;
  items?: Array<{ name: string }>;
}

let server: ConformanceServer;
let bills: Collection<Bill>;

const at = (hour: number) => new Date(Date.UTC(2091, 2, 4, hour));
const BILLS: Bill[] = [
  [1, 1, '2091-03-04', 9, false, 'Paid', 1500, 'nimal perera 0771234567 lb-20910304-0001', 'r1'],
  [2, 1, '2091-03-04', 9, false, 'Pending', 250, 'අයේෂා පෙරේරා lb-20910304-0002', null],
  [3, 1, '2091-03-05', 11, false, 'Paid', 99, 'கமலா சிவா 0719876543', undefined],
  [4, 2, '2091-03-05', 12, false, 'Paid', 1500, 'x*y? (special) silva', 'r2'],
  [5, 1, '2091-03-06', 8, true, 'Paid', 700, 'deleted nimal', 'r1'],
  [6, 1, '2091-03-06', 13, false, 'Cancelled', 0, 'Nimal Fernando', 'r3'],
].map(([id, store, date, hour, deleted, status, total, text, run]) => ({
  _id: String(id),
  id: id as number,
  store_id: store as number,
  bill_date: date as string,
  created_at: at(hour as number),
  is_deleted: deleted as boolean,
  payment_status: status as string,
  grand_total_cents: total as number,
  search_text: text as string,
  ...(run === undefined ? {} : { run_id: run as string | null }),
  items: [{ name: `item ${id}` }],
}));

const ids = (docs: Array<{ id?: number }>) => docs.map((d) => d.id);

beforeAll(async () => {
  server = await openServer('queries');
  bills = server.db.collection<Bill>('bills');
  await bills.insertMany(BILLS);
  await ensureIndexes(
    bills,
    [
      {
        key: { store_id: 1, is_deleted: 1, created_at: -1, id: -1, search_text: 1 },
        name: 'list',
        substringSearch: true,
      },
      { key: { store_id: 1, is_deleted: 1, bill_date: 1, created_at: -1, id: -1 }, name: 'by_day' },
    ],
    server.db,
  );
});
afterAll(() => server?.stop());

describe('filters', () => {
  it('match equality, ranges and $in on the fields the services index', async () => {
    expect(ids(await bills.find({ store_id: 1, is_deleted: false }).sort({ id: 1 }).toArray())).toEqual([1, 2, 3, 6]);
    const range = { bill_date: { $gte: '2091-03-05', $lte: '2091-03-06' } };
    expect(ids(await bills.find(range).sort({ id: 1 }).toArray())).toEqual([3, 4, 5, 6]);
    expect(ids(await bills.find({ bill_date: { $gt: '2091-03-04', $lt: '2091-03-06' } }).toArray()).sort()).toEqual([
      3, 4,
    ]);
    expect(
      ids(
        await bills
          .find({ _id: { $in: ['2', '4', '404'] } })
          .sort({ id: 1 })
          .toArray(),
      ),
    ).toEqual([2, 4]);
    expect(
      ids(
        await bills
          .find({ created_at: { $lte: at(9) } })
          .sort({ id: 1 })
          .toArray(),
      ),
    ).toEqual([1, 2, 5]);
  });

  it('treat null as null or missing, and let $nin and $exists:false match a missing field', async () => {
    // "{ field: null } matches documents that contain the field with a null value or that do not contain the field".
    expect(ids(await bills.find({ run_id: null }).sort({ id: 1 }).toArray())).toEqual([2, 3]);
    // "$nin selects documents where the field value is not in the array or the field does not exist".
    expect(
      ids(
        await bills
          .find({ run_id: { $nin: ['r1', 'r3'] } })
          .sort({ id: 1 })
          .toArray(),
      ),
    ).toEqual([2, 3, 4]);
    expect(ids(await bills.find({ run_id: { $exists: false } }).toArray())).toEqual([3]);
    expect(ids(await bills.find({ _id: '1', run_id: { $exists: false } }).toArray())).toEqual([]);
  });

  it('find a literal substring, in any script, escaped as the services escape it', async () => {
    const search = (term: string) =>
      bills
        .find({ store_id: 1, is_deleted: false, search_text: { $regex: escapeRegExp(term) } })
        .sort({ created_at: -1, id: -1 })
        .hint('list')
        .toArray();
    expect(ids(await search('0771234567'))).toEqual([1]);
    expect(ids(await search('පෙරේරා'))).toEqual([2]);
    expect(ids(await search('சிவா'))).toEqual([3]);
    expect(ids(await search('lb-20910304-000'))).toEqual([2, 1]);
    // Case-sensitive without options: 'Nimal Fernando' is not found.
    expect(ids(await search('nimal'))).toEqual([1]);
    expect(ids(await bills.find({ search_text: { $regex: escapeRegExp('x*y? (special)') } }).toArray())).toEqual([4]);
    expect(
      await bills.countDocuments(
        { store_id: 1, is_deleted: false, search_text: { $regex: 'perera' } },
        { hint: 'list' },
      ),
    ).toBe(1);
  });

  it('match either regular expression of an $or, ignoring case with $options i', async () => {
    const literal = { $regex: escapeRegExp('NIMAL'), $options: 'i' };
    const found = await bills
      .find({ store_id: 1, $or: [{ search_text: literal }, { payment_status: literal }] })
      .toArray();
    expect(ids(found).sort()).toEqual([1, 5, 6]);
  });
});

describe('sorts and pages', () => {
  it('order newest first with the id breaking ties, and page with skip and limit', async () => {
    const newestFirst = { created_at: -1, id: -1 } as const;
    const all = await bills.find({ store_id: 1 }).sort(newestFirst).toArray();
    expect(ids(all)).toEqual([6, 3, 2, 1, 5]);
    expect(ids(await bills.find({ store_id: 1 }).sort(newestFirst).skip(1).limit(2).toArray())).toEqual([3, 2]);
    expect(ids(await bills.find({ store_id: 1 }).sort(newestFirst).skip(10).limit(2).toArray())).toEqual([]);
    const page = await bills
      .find({ store_id: 1, is_deleted: false, bill_date: { $in: ['2091-03-04', '2091-03-06'] } })
      .sort(newestFirst)
      .limit(2)
      .hint('by_day')
      .toArray();
    expect(ids(page)).toEqual([6, 2]);
  });

  it('puts null and missing values first in ascending order', async () => {
    // The BSON comparison order: null (and missing) before strings.
    const asc = await bills.find({}).sort({ run_id: 1, id: 1 }).toArray();
    expect(ids(asc)).toEqual([2, 3, 1, 5, 4, 6]);
  });

  it('finds the last of a sequence with a descending sort and limit 1', async () => {
    const [last] = await bills
      .find({ bill_date: '2091-03-04' }, { projection: { id: 1 } })
      .sort({ id: -1 })
      .limit(1)
      .toArray();
    expect(last).toEqual({ _id: '2', id: 2 });
  });
});

describe('projections and counts', () => {
  it('return only the included fields, without _id when it is excluded, and nothing for a missing one', async () => {
    const docs = await bills
      .find({ _id: { $in: ['2', '3'] } }, { projection: { _id: 0, id: 1, run_id: 1, grand_total_cents: 1 } })
      .sort({ id: 1 })
      .toArray();
    expect(docs).toEqual([
      { id: 2, run_id: null, grand_total_cents: 250 },
      { id: 3, grand_total_cents: 99 },
    ]);
  });

  it('leave out the excluded fields and keep every other', async () => {
    const doc = await bills.findOne({ _id: '1' }, { projection: { items: 0, search_text: 0 } });
    expect(doc).toEqual({
      _id: '1',
      id: 1,
      store_id: 1,
      bill_date: '2091-03-04',
      created_at: at(9),
      is_deleted: false,
      payment_status: 'Paid',
      grand_total_cents: 1500,
      run_id: 'r1',
    });
  });

  it('count what a filter matches, with a hint, and estimate a collection', async () => {
    expect(await bills.countDocuments({ store_id: 1, is_deleted: false }, { hint: 'by_day' })).toBe(4);
    expect(await bills.countDocuments({ store_id: 9 })).toBe(0);
    expect(await bills.estimatedDocumentCount()).toBe(BILLS.length);
  });

  it('answer a findOne by _id with the document, or null', async () => {
    expect(await bills.findOne({ _id: '4' })).toEqual(BILLS[3]);
    expect(await bills.findOne({ _id: '404' })).toBeNull();
  });
});
