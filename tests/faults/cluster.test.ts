/**
 * Faults of a three-node NATS cluster under load: bills created through the
 * gateway and reference records published by another hospital system, while
 * one node is killed with SIGKILL, the leaders of HOSPITAL_REF and
 * BILLING_EVENTS are killed, and one node is partitioned away in a network
 * namespace. After each: the must-be-zero counts of faults.test.ts, every
 * acknowledged reference record on the stream and in billing's read model,
 * and every node holding the same streams (the node that was away caught up).
 * The figures are printed and written to bench-results/faults-cluster-latest.json.
 */
import { MongoClient } from 'mongodb';
import type { NatsConnection } from 'nats';
import { BillingSubjects, eventStreamOf, REF_STREAM } from '@clinic/contracts';
import { connectNats, createLogger } from '@clinic/service-kit';
import type { NatsNode } from '@clinic/devstack';
import { eventually, sleep, type TestStack } from '../e2e/harness';
import { billLoad, expectHealthy, verify, writeReports } from './checks';
import type { BillLoad } from './load';
import { NetnsNode } from './netns';
import { startWithThirdNodeIn, stopWithThirdNodeIn } from './partitioned-cluster';
import { RefLoad } from './ref-load';

const STREAMS = [
  REF_STREAM.name,
  eventStreamOf('billing').name,
  eventStreamOf('catalogue').name,
  eventStreamOf('sessions').name,
];

let ns: NetnsNode;
let t: TestStack;
let chargeId: number;
const reports: Record<string, unknown>[] = [];
const extra: NatsConnection[] = [];

beforeAll(async () => {
  ns = NetnsNode.create();
  t = await startWithThirdNodeIn(ns, { replicas: { billing: 2 }, env: { REQUEST_TIMEOUT_MS: '3000' } });
  chargeId = (await t.post('/hospital_charges', { store_id: 1, charge_name: 'CBC', charge_type: 'Lab', amount: 850 }))
    .body.charge_id;
}, 120_000);

afterAll(async () => {
  await stopWithThirdNodeIn(ns, t, extra);
  writeReports('faults-cluster-latest.json', reports);
}, 60_000);

const node = (name: string): NatsNode => {
  const found = t.stack.infra.natsNodes.find((n) => n.name === name);
  if (!found) throw new Error(`no NATS node ${name}`);
  return found;
};

/**
 * A connection as `hospital` to the given nodes only. `roams`: it reconnects to
 * another node when its own goes, as a service's does (`inOrder`: first node first).
 */
async function hospitalOn(
  nodes: NatsNode[],
  options: { roams?: boolean; inOrder?: boolean } = {},
): Promise<NatsConnection> {
  const settings = {
    url: nodes.map((n) => n.url).join(','),
    user: 'hospital',
    password: t.stack.infra.natsPasswords.hospital,
  };
  const log = createLogger('faults', 'silent');
  const nc = await connectNats(settings, {
    name: 'faults-hospital',
    log,
    waitForServer: options.roams ?? false,
    inOrder: options.inOrder,
  });
  extra.push(nc);
  return nc;
}

/**
 * The stream's leader. Asked again while the cluster is electing one (right
 * after a node was killed, the API times out or answers without a leader).
 */
async function leaderOf(stream: string): Promise<string> {
  const nc = await t.nats(stream === REF_STREAM.name ? 'ops' : 'hospital');
  const jsm = await nc.jetstreamManager({ checkAPI: false });
  return eventually(
    async () => (await jsm.streams.info(stream).catch(() => undefined))?.cluster?.leader || undefined,
    30_000,
    250,
  );
}

interface StreamState {
  messages: number;
  first_seq: number;
  last_seq: number;
}

/** Each stream's state as one node holds it (its own store), from its monitoring endpoint. */
async function nodeStreams(n: NatsNode): Promise<Map<string, StreamState>> {
  const response = await fetch(`${n.monitorUrl}/jsz?accounts=true&streams=true`, {
    signal: AbortSignal.timeout(3_000),
  });
  const jsz = (await response.json()) as {
    account_details?: Array<{ stream_detail?: Array<{ name: string; state: StreamState }> }>;
  };
  const streams = (jsz.account_details ?? []).flatMap((a) => a.stream_detail ?? []);
  return new Map(
    streams.map((s) => [
      s.name,
      { messages: s.state.messages, first_seq: s.state.first_seq, last_seq: s.state.last_seq },
    ]),
  );
}

/** Waits until every node holds every stream in the same state; returns how long that took. */
async function caughtUp(): Promise<number> {
  const since = Date.now();
  await eventually(
    async () => {
      const views = await Promise.all(
        t.stack.infra.natsNodes.map((n) => nodeStreams(n).catch(() => new Map<string, StreamState>())),
      );
      const same = STREAMS.every((name) =>
        views.every((v) => JSON.stringify(v.get(name)) === JSON.stringify(views[0]!.get(name)) && v.has(name)),
      );
      return same ? true : undefined;
    },
    60_000,
    250,
  );
  return Date.now() - since;
}

/** Acknowledged reference records missing from the stream or from billing's read model, once billing has caught up. */
async function refRecordsMissing(acked: Map<number, number>): Promise<number> {
  const last = Math.max(0, ...acked.values());
  const ops = await t.nats('ops');
  await eventually(
    async () => {
      const reply = await ops.request(BillingSubjects.refStatus, '{}', { timeout: 2_000 }).catch(() => undefined);
      return reply && JSON.parse(new TextDecoder().decode(reply.data)).body.applied_seq >= last ? true : undefined;
    },
    60_000,
    200,
  ).catch(() => undefined);
  const mongo = await MongoClient.connect(t.stack.infra.mongoUrl);
  try {
    const stored = await mongo
      .db('clinic_billing')
      .collection('ref_patients')
      .find({ deleted: false }, { projection: { id: 1 } })
      .toArray();
    const ids = new Set(stored.map((d) => d.id as number));
    const jsm = await ops.jetstreamManager({ checkAPI: false });
    const streamLast = await eventually(
      async () => (await jsm.streams.info(REF_STREAM.name).catch(() => undefined))?.state.last_seq,
      30_000,
      250,
    );
    return [...acked].filter(([id, seq]) => !ids.has(id) || seq > streamLast).length;
  } finally {
    await mongo.close();
  }
}

/** Bills and reference records under way for 2 s; `faultAt` is the load's clock then. */
async function loadsRunning(date: string, firstRefId: number) {
  const run = billLoad(t, chargeId, date);
  const refs = new RefLoad({ nc: await hospitalOn(t.stack.infra.natsNodes, { roams: true }), firstId: firstRefId });
  run.start();
  refs.start();
  await sleep(2_000);
  return { run, refs, faultAt: run.now() };
}

/**
 * Stops the loads, waits until every node holds the same streams, and checks
 * the bills and the acknowledged reference records (those of `refs`, and
 * `moreAcked` from another publisher).
 */
async function settle(
  fault: string,
  run: BillLoad,
  refs: RefLoad,
  date: string,
  faultAt: number,
  moreAcked = new Map<number, number>(),
) {
  await Promise.all([run.stop(), refs.stop()]);
  const catchUpMs = await caughtUp();
  const report = await verify(t, reports, fault, run, date, faultAt);
  report.ref_records_published = refs.acked.size;
  report.ref_records_missing = await refRecordsMissing(new Map([...refs.acked, ...moreAcked]));
  report.node_catch_up_ms = catchUpMs;
  expectHealthy(t, report);
  expect(report.ref_records_missing).toBe(0);
  expect(refs.acked.size).toBeGreaterThan(0);
  // Only requests in flight on a lost connection fail, with 503 or 504.
  for (const status of Object.keys(report.failed_by_status)) expect(['503', '504']).toContain(status);
  return report;
}

it('kill -9 one NATS node of three: requests keep being served; the node rejoins and catches up', async () => {
  const date = '2032-02-01';
  const leaders = new Set([await leaderOf(REF_STREAM.name), await leaderOf(eventStreamOf('billing').name)]);
  // A node that leads neither stream (the leaders have their own test below), n3 aside.
  const victim = node(['n1', 'n2', 'n3'].find((n) => !leaders.has(n)) ?? 'n2');
  const { run, refs, faultAt } = await loadsRunning(date, 100_000);
  victim.process.signal('SIGKILL');
  await sleep(4_000);
  const restartedAt = Date.now();
  await victim.start();
  const rejoinMs = Date.now() - restartedAt;
  await sleep(1_000);
  const report = await settle(`kill -9 NATS node ${victim.name} of 3 (down 4 s)`, run, refs, date, faultAt);
  report.node_rejoin_ms = rejoinMs;
}, 180_000);

it('kill -9 the node that leads HOSPITAL_REF and BILLING_EVENTS while reference records are published and bills are created', async () => {
  const date = '2032-02-02';
  const { run, refs, faultAt } = await loadsRunning(date, 200_000);
  // One node when it leads both; otherwise each leader in turn (never two nodes down at once).
  const killed: string[] = [];
  for (const stream of [REF_STREAM.name, eventStreamOf('billing').name]) {
    const leader = node(await leaderOf(stream));
    if (killed.includes(leader.name)) continue;
    killed.push(leader.name);
    leader.process.signal('SIGKILL');
    await sleep(4_000);
    await leader.start();
  }
  await sleep(1_000);
  // The streams elected new leaders while theirs were down: records kept being acknowledged.
  await settle(
    `kill -9 the leader of HOSPITAL_REF and BILLING_EVENTS (${killed.join(', then ')})`,
    run,
    refs,
    date,
    faultAt,
  );
}, 180_000);

it('partition one NATS node away: the minority accepts no write; after healing no acknowledged message is missing', async () => {
  const date = '2032-02-03';
  const n3 = node('n3');
  const minorityClient = await hospitalOn([n3]);
  // A client given every node that happens to be on n3 must leave it for the majority side.
  const roaming = await hospitalOn([n3, node('n1'), node('n2')], { roams: true, inOrder: true });
  expect(roaming.info?.server_name).toBe('n3');
  const majorityClient = await hospitalOn([node('n1'), node('n2')], { roams: true });
  const leadersBefore = `HOSPITAL_REF on ${await leaderOf(REF_STREAM.name)}, BILLING_EVENTS on ${await leaderOf(eventStreamOf('billing').name)}`;
  const run = billLoad(t, chargeId, date);
  const majority = new RefLoad({ nc: majorityClient, firstId: 300_000 });
  const minority = new RefLoad({ nc: minorityClient, firstId: 400_000, maxAttempts: 1 });
  run.start();
  majority.start();
  await sleep(2_000);
  const faultAt = run.now();
  ns.partition();
  minority.start();
  await sleep(12_000);
  // Seeing the cut takes route pings (2 s, 3 missed) and the client's check (2 s): about 10 s, more when loaded.
  const movedBy = Date.now() + 15_000;
  while (!['n1', 'n2'].includes(roaming.info?.server_name ?? '') && Date.now() < movedBy) await sleep(250);
  const roamedTo = roaming.info?.server_name;
  await minority.stop();
  const majorityAckedWhilePartitioned = majority.acked.size;
  ns.heal();
  const healedAt = run.now();
  await sleep(3_000);
  const report = await settle(
    `partition NATS node n3 away for 12 s (${leadersBefore})`,
    run,
    majority,
    date,
    faultAt,
    minority.acked,
  );
  report.minority_writes_attempted = minority.attempts;
  report.minority_writes_acknowledged = minority.acked.size;
  report.majority_writes_acknowledged_while_partitioned = majorityAckedWhilePartitioned;
  report.recovery_after_heal_ms = run.recoveryMs(healedAt);
  report.client_on_n3_moved_to = roamedTo;
  expect(['n1', 'n2']).toContain(roamedTo);
  expect(minority.attempts).toBeGreaterThan(0);
  expect(minority.acked.size).toBe(0);
}, 180_000);
