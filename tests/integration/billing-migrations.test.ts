/**
 * Bills stored by a version that kept neither search_text nor the per-day
 * registry are found by search and counted by the summary once billing's
 * storage has prepared itself, and preparing again changes nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, type Db } from 'mongodb';
import { startLocalInfrastructure, type Infrastructure } from '@clinic/devstack';
import { createLogger } from '@clinic/service-kit';
import { runMigrations } from '../../services/billing/src/storage/migrations';
import { searchTextOf } from '../../services/billing/src/storage/search';

let dir: string;
let infra: Infrastructure;
let mongo: MongoClient;
let db: Db;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'clinic-migrations-'));
  infra = await startLocalInfrastructure({ dataDir: dir, logDir: join(dir, 'logs') });
  mongo = await MongoClient.connect(infra.mongoUrl, { serverSelectionTimeoutMS: 2000 });
  db = mongo.db('billing_migrations');
});
afterAll(async () => {
  await mongo?.close();
  await infra?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const legacyBill = (id: number, store: number, date: string) => ({
  _id: String(id),
  id,
  bill_number: `LB-${date.replaceAll('-', '')}-${String(id).padStart(4, '0')}`,
  bill_date: date,
  store_id: store,
  patient_name: `Ayesha ÉLAN ${id}`,
  patient_contact: `07700000${id}`,
  patient_nic: id % 2 ? null : `${id}V`,
  is_deleted: false,
  status: 'active',
});

it('derives search_text and the bill days once, from the bills', async () => {
  const bills = db.collection<any>('bills');
  const legacy = [
    legacyBill(1, 1, '2090-01-01'),
    legacyBill(2, 1, '2090-01-01'),
    legacyBill(3, 1, '2090-01-02'),
    legacyBill(4, 2, '2090-01-02'),
  ];
  await bills.insertMany(legacy);
  await bills.createIndexes([{ key: { store_id: 1, is_deleted: 1, bill_date: 1 }, name: 'bills_by_day' }]);
  const log = createLogger('test', 'silent');
  await runMigrations(db, bills, log);

  for (const bill of legacy) {
    expect((await bills.findOne({ _id: bill._id }))?.search_text).toBe(searchTextOf(bill));
  }
  expect(searchTextOf(legacy[0]!)).toContain('ayesha élan 1');
  const days = await db
    .collection('bill_days')
    .find({}, { sort: { _id: 1 } })
    .toArray();
  // Each day, and each branch's month, with a version token of its own.
  expect(days.map((d) => d._id)).toEqual([
    '1:2090-01-01',
    '1:2090-01-02',
    '2:2090-01-02',
    'm:1:2090-01',
    'm:2:2090-01',
  ]);
  expect(days[3]).toMatchObject({ month_of_store: 1, month: '2090-01', token: expect.any(String) });

  // Done once: a bill stored without search_text afterwards is the writers' business, not the migration's.
  await bills.insertOne(legacyBill(5, 3, '2090-01-03'));
  await runMigrations(db, bills, log);
  expect((await bills.findOne({ _id: '5' }))?.search_text).toBeUndefined();
  expect(await db.collection('bill_days').countDocuments({})).toBe(5);
});

it('lets replicas that start together run the migrations at once', async () => {
  // Two billing replicas starting at the same moment (as the cluster fault test's do) both find no
  // migration done and both mark it; FerretDB's upsert is not atomic, so one of them got E11000.
  const fresh = mongo.db('billing_migrations_race');
  const bills = fresh.collection<any>('bills');
  await bills.insertMany([legacyBill(1, 1, '2090-03-01'), legacyBill(2, 2, '2090-03-01')]);
  for (let round = 0; round < 5; round++) {
    await fresh.collection('migrations').deleteMany({});
    await fresh.collection('bill_days').deleteMany({});
    const log = createLogger('test', 'silent');
    await expect(Promise.all(Array.from({ length: 4 }, () => runMigrations(fresh, bills, log)))).resolves.toBeDefined();
  }
  expect(await fresh.collection('migrations').countDocuments()).toBe(3);
  expect(await fresh.collection('bill_days').countDocuments()).toBe(4);
});
