/**
 * Backup and restore of the embedded default: `npm run backup`
 * while bills are being created, `npm run restore` into an empty data folder,
 * a new stack on it. Every bill acknowledged before the backup began is there
 * with its number, the numbers of each date have no gap or duplicate and go
 * on without one, no restored event tells of a bill the restored system does
 * not hold, and reference data published after the restore is applied.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MongoClient } from 'mongodb';
import { REPO_ROOT } from '@clinic/devstack';
import { branch } from './fixtures';
import { sleep, startTestStack, type TestStack } from './harness';

const run = promisify(execFile);
const cli = (name: string) => join(REPO_ROOT, 'tools', 'cli', 'dist', `${name}.js`);
const DATES = ['2097-05-01', '2097-05-02'];

interface Acknowledged {
  id: number;
  number: string;
  date: string;
  at: number;
}

let work: string;
let before: TestStack | undefined;
let after: TestStack | undefined;
afterAll(async () => {
  await before?.stop();
  await after?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** Creates bills one after another until stopped, recording each one answered 201. */
function billLoad(t: TestStack, chargeId: number, client: number) {
  const acknowledged: Acknowledged[] = [];
  let running = true;
  const done = (async () => {
    for (let i = 0; running; i++) {
      const date = DATES[i % DATES.length]!;
      const response = await t.post(
        '/lab_bills',
        {
          patient_name: `Backup ${client}-${i}`,
          patient_contact: '0770000000',
          bill_date: date,
          payment_method: 'Cash',
          store_id: 1,
          items: [{ charge_id: chargeId, charge_name: 'CBC', unit_price: 850, qty: 1 }],
        },
        { headers: { 'idempotency-key': `backup-${client}-${i}` } },
      );
      if (response.status === 201) {
        acknowledged.push({ id: response.body.bill_id, number: response.body.bill_number, date, at: Date.now() });
      }
    }
  })();
  return {
    acknowledged,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

async function billSeqs(t: TestStack, date: string): Promise<number[]> {
  const mongo = await MongoClient.connect(t.stack.infra.mongoUrl);
  try {
    const docs = await mongo.db('clinic_billing').collection('bills').find({ bill_date: date }).toArray();
    return docs.map((d) => d.bill_seq as number).sort((a, b) => a - b);
  } finally {
    await mongo.close();
  }
}

/** The ids of the bills the `billing.bill.created` events of BILLING_EVENTS tell of. */
async function createdEvents(t: TestStack): Promise<number[]> {
  const nc = await t.nats('hospital');
  const consumer = await nc.jetstream().consumers.get('BILLING_EVENTS', 'hospital');
  const ids: number[] = [];
  for (;;) {
    let got = 0;
    for await (const m of await consumer.fetch({ max_messages: 500, expires: 1_000 })) {
      got++;
      if (m.subject === 'billing.bill.created') ids.push(m.json<{ data: { bill: { id: number } } }>().data.bill.id);
      m.ack();
    }
    if (got === 0) return ids;
  }
}

/** Every file and folder under `dir` that a user other than its owner may read (a backup holds patient data). */
function readableByOthers(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((path) => join(dir, path))
    .filter((path) => (statSync(path).mode & 0o077) !== 0);
}

it('backs up under load, restores into an empty folder, and the bills and their numbers go on', async () => {
  work = mkdtempSync(join(tmpdir(), 'clinic-backup-'));
  const liveDir = join(work, 'live');
  const backupDir = join(work, 'backup');
  const restoredDir = join(work, 'restored');
  before = await startTestStack({ dataDir: liveDir });
  await before.seed({ stores: [branch(1, 'Main')], patients: [{ id: 5, name: 'Before' }] });
  const chargeId = (
    await before.post('/hospital_charges', { store_id: 1, charge_name: 'CBC', charge_type: 'Lab', amount: 850 })
  ).body.charge_id;

  const loads = [1, 2, 3, 4].map((client) => billLoad(before!, chargeId, client));
  await sleep(1_500);
  const backupStarted = Date.now();
  const env = { ...process.env, DATA_DIR: liveDir, NATS_URL: before.stack.infra.natsUrl };
  const backup = await run(process.execPath, [cli('backup'), backupDir], { env });
  expect(backup.stdout).toContain(`into ${backupDir}`);
  // Its databases' copies, the streams' snapshots and the secrets are the owner's alone (the manifest names them).
  expect(readableByOthers(backupDir).filter((path) => !path.endsWith('manifest.json'))).toEqual([]);
  await sleep(500);
  for (const load of loads) await load.stop();
  const acknowledged = loads.flatMap((l) => l.acknowledged);
  const beforeBackup = acknowledged.filter((a) => a.at < backupStarted);
  expect(beforeBackup.length).toBeGreaterThan(5);
  // Some were written while it ran: the copy was taken online.
  expect(acknowledged.length).toBeGreaterThan(beforeBackup.length);
  await before.stop();
  before = undefined;

  // An occupied folder is refused; an empty one takes the backup.
  await expect(
    run(process.execPath, [cli('restore'), backupDir], { env: { ...process.env, DATA_DIR: liveDir } }),
  ).rejects.toMatchObject({ stderr: expect.stringContaining('restore into an empty DATA_DIR') });
  await run(process.execPath, [cli('restore'), backupDir], { env: { ...process.env, DATA_DIR: restoredDir } });
  expect(readableByOthers(join(restoredDir, 'ferretdb'))).toEqual([]);
  expect((statSync(restoredDir).mode & 0o777).toString(8)).toBe('700');
  after = await startTestStack({ dataDir: restoredDir });

  for (const bill of beforeBackup) {
    const read = await after.get(`/lab_bills/${bill.id}`);
    expect({ id: bill.id, status: read.status, number: read.body.bill?.bill_number }).toEqual({
      id: bill.id,
      status: 200,
      number: bill.number,
    });
  }
  for (const date of DATES) {
    const seqs = await billSeqs(after, date);
    // 1..n: no gap and no number twice.
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const next = await after.post('/lab_bills', {
      patient_name: 'After restore',
      patient_contact: '0770000000',
      bill_date: date,
      payment_method: 'Cash',
      store_id: 1,
      items: [{ charge_id: chargeId, charge_name: 'CBC', unit_price: 850, qty: 1 }],
    });
    expect(next.status).toBe(201);
    expect(await billSeqs(after, date)).toEqual([...seqs, seqs.length + 1]);
  }

  // Every event the restored stream holds tells of a bill the restored database holds.
  const restoredIds = new Set<number>();
  for (const date of DATES) {
    const mongo = await MongoClient.connect(after.stack.infra.mongoUrl);
    const docs = await mongo.db('clinic_billing').collection('bills').find({ bill_date: date }).toArray();
    for (const d of docs) restoredIds.add(d.id as number);
    await mongo.close();
  }
  const events = await createdEvents(after);
  expect(events.length).toBeGreaterThanOrEqual(beforeBackup.length);
  expect(events.filter((id) => !restoredIds.has(id))).toEqual([]);

  // Reference data: a record published now replaces the one restored, which it would not do were the reference
  // stream's sequences to start again below those the restored read model holds.
  await after.seed({ patients: [{ id: 5, name: 'After' }] });
  const mongo = await MongoClient.connect(after.stack.infra.mongoUrl);
  try {
    expect(
      await mongo
        .db('clinic_billing')
        .collection('ref_patients')
        .findOne({ _id: '5' as never }),
    ).toMatchObject({
      name: 'After',
    });
  } finally {
    await mongo.close();
  }
}, 240_000);
