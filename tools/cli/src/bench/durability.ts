// Durability settings side by side: JetStream's sync_interval (`always`, a
// flush to disk before each acknowledgement, versus nats-server's default, a
// flush every 2 minutes) on one server and on a three-node cluster whose
// streams have three replicas. For each, a stack of its own (free ports, a
// temporary folder) measures POST /lab_bills through the gateway and the
// publication of reference records (each acknowledged one at a time, then a
// seed file published at once until every service has applied it).
//   node tools/cli/dist/bench/durability.js     DURABILITY_SECONDS (10), DURABILITY_RECORDS (2000)
// Prints a table; writes bench-results/durability-<date>.json.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { refSubject } from '@clinic/contracts';
import { parseSeedFile, REPO_ROOT, seedReferenceData, signToken, Stack } from '@clinic/devstack';
import { connectNats, createLogger } from '@clinic/service-kit';
import { summarize, type LatencyStats } from './stats';

const SECONDS = Number(process.env.DURABILITY_SECONDS ?? 10);
const RECORDS = Number(process.env.DURABILITY_RECORDS ?? 2000);
const say = (line: string) => process.stderr.write(`[durability] ${line}\n`);

interface Setting {
  label: string;
  natsCluster: number;
  syncInterval: 'always' | 'default';
}

const SETTINGS: Setting[] = [
  { label: '1 server, sync default (2 min)', natsCluster: 1, syncInterval: 'default' },
  { label: '1 server, sync always', natsCluster: 1, syncInterval: 'always' },
  { label: '3 nodes R3, sync default (2 min)', natsCluster: 3, syncInterval: 'default' },
  { label: '3 nodes R3, sync always', natsCluster: 3, syncInterval: 'always' },
];

/** 8 clients creating bills for `SECONDS`, each waiting for its answer. */
async function billLoad(url: string, token: string, chargeId: number, date: string): Promise<LatencyStats> {
  const samples: number[] = [];
  let errors = 0;
  const started = performance.now();
  const until = started + SECONDS * 1000;
  const body = JSON.stringify({
    patient_name: 'Bench Patient',
    patient_contact: '0770000000',
    bill_date: date,
    payment_method: 'Card',
    store_id: 1,
    items: [{ charge_id: chargeId, charge_name: 'CBC', unit_price: 850, qty: 1 }],
  });
  const worker = async () => {
    while (performance.now() < until) {
      const t0 = performance.now();
      const response = await fetch(`${url}/lab_bills`, {
        method: 'POST',
        body,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      }).catch(() => null);
      if (response?.status === 201) samples.push(performance.now() - t0);
      else errors++;
      await response?.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return summarize(samples, errors, performance.now() - started);
}

async function measure(setting: Setting): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'clinic-durability-'));
  const stack = await Stack.start({
    dataDir,
    infra: 'local',
    natsCluster: setting.natsCluster,
    syncInterval: setting.syncInterval,
    env: { LOG_LEVEL: 'warn' },
  });
  const nc = await connectNats(
    { url: stack.infra.natsUrl, user: 'ops', password: stack.infra.natsPasswords.ops },
    { name: 'bench-durability', log: createLogger('bench', 'silent'), waitForServer: false },
  );
  try {
    await seedReferenceData(nc, parseSeedFile({ stores: [{ id: 1, name: 'Main', status: 'active' }] }));
    const token = signToken({ sub: 1, role: 'admin', expiresInSeconds: 3600 }, stack.signingKey());
    const charge = await fetch(`${stack.gatewayUrl}/hospital_charges`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ store_id: 1, charge_name: 'CBC', charge_type: 'Lab', amount: 850 }),
    }).then((r) => r.json() as Promise<{ charge_id: number }>);

    say(`${setting.label}: POST /lab_bills, 8 clients, ${SECONDS} s`);
    const bills = await billLoad(stack.gatewayUrl, token, charge.charge_id, '2040-01-01');

    say(`${setting.label}: ${RECORDS / 4} reference records, each acknowledged before the next`);
    const js = nc.jetstream();
    const acks: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < RECORDS / 4; i++) {
      const s = performance.now();
      await js.publish(refSubject('patient'), JSON.stringify({ id: 1_000_000 + i, name: `Bench ${i}` }));
      acks.push(performance.now() - s);
    }
    const oneByOne = summarize(acks, 0, performance.now() - t0);

    say(`${setting.label}: a seed file of ${RECORDS} patients, published at once, until every service applied it`);
    const seed = parseSeedFile({
      patients: Array.from({ length: RECORDS }, (_, i) => ({ id: 2_000_000 + i, name: `Seed ${i}` })),
    });
    const s0 = performance.now();
    await seedReferenceData(nc, seed, { timeoutMs: 120_000 });
    const seedMs = performance.now() - s0;
    return {
      setting: setting.label,
      nats_nodes: setting.natsCluster,
      sync_interval: setting.syncInterval,
      bills,
      ref_acked_one_by_one: oneByOne,
      seed: { records: RECORDS, ms: Math.round(seedMs), records_per_s: Math.round(RECORDS / (seedMs / 1000)) },
    };
  } finally {
    await nc.close();
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const results: Record<string, unknown>[] = [];
  for (const setting of SETTINGS) results.push(await measure(setting));
  const dir = join(REPO_ROOT, 'bench-results');
  mkdirSync(dir, { recursive: true });
  const date = new Date().toISOString();
  const file = join(dir, `durability-${date.replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ date, cores: cpus().length, seconds: SECONDS, records: RECORDS, results }, null, 2)}\n`,
  );
  const rows = results.map(
    (r: any) =>
      `| ${r.setting} | ${r.bills.rps} | ${r.bills.p50.toFixed(1)} | ${r.bills.p99.toFixed(1)} | ${r.bills.errors} | ${r.ref_acked_one_by_one.p50.toFixed(2)} | ${r.ref_acked_one_by_one.p99.toFixed(2)} | ${r.ref_acked_one_by_one.rps} | ${r.seed.records_per_s} |`,
  );
  process.stdout.write(
    [
      '',
      '| Setting | Bills/s | Bill p50 ms | Bill p99 ms | Bill errors | Ref ack p50 ms | Ref ack p99 ms | Refs/s one by one | Seed records/s (applied) |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows,
      '',
      `JSON: ${file}`,
      '',
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  say(`failed: ${(err as Error).stack}`);
  process.exit(1);
});
