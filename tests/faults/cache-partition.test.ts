/**
 * The partition proof: hot reads stay exact while one catalogue replica is cut
 * off from the cluster's majority. A three-node NATS cluster, n3 in a network
 * namespace; one catalogue replica on n1 only, another on n3 only, both
 * holding the charge list in memory. n3 leads the JetStream API and the
 * catalogue's cache stream when it is partitioned away, so that it goes on
 * answering for the stream until it notices it lost its quorum. A client on n1 changes the price (the
 * replica on n1 answers, through the majority's new leader) and, once the
 * change is acknowledged, a client on n3 reads the list, which only the
 * replica on n3 can answer (NATS keeps a request on its node's queue
 * subscribers, and routes are cut). That replica must answer the new price
 * (from the database) or refuse; never the price it held. So must a gateway
 * on n3, whose reply cache holds the list.
 */
import type { NatsConnection } from 'nats';
import { cacheStreamOf, HTTP_ROUTES, type ServiceReply } from '@clinic/contracts';
import { callService, connectNats, createLogger } from '@clinic/service-kit';
import type { NatsNode } from '@clinic/devstack';
import type { ManagedProcess } from '@clinic/devstack';
import { eventually, startSecondGateway, type TestStack } from '../e2e/harness';
import { NetnsNode } from './netns';
import { leadOn, metaLeadOn, startWithThirdNodeIn, stopWithThirdNodeIn } from './partitioned-cluster';

let ns: NetnsNode;
let t: TestStack;
let gatewayOnN3: { url: string; process: ManagedProcess } | undefined;
const clients: NatsConnection[] = [];

beforeAll(async () => {
  ns = NetnsNode.create();
  t = await startWithThirdNodeIn(ns);
}, 120_000);

afterAll(async () => {
  await gatewayOnN3?.process.stop();
  await stopWithThirdNodeIn(ns, t, clients);
}, 60_000);

const node = (name: string): NatsNode => t.stack.infra.natsNodes.find((n) => n.name === name)!;
const route = (method: string, url: string) => HTTP_ROUTES.find((r) => r.method === method && r.url === url)!;
const LIST = route('GET', '/hospital_charges');
const UPDATE = route('PUT', '/hospital_charges/:charge_id');

/** Another hospital system's connection to this node only (it never moves to another). */
async function clientOn(n: NatsNode): Promise<NatsConnection> {
  const nc = await connectNats(
    { url: n.url, user: 'hospital', password: t.stack.infra.natsPasswords.hospital },
    { name: `cache-partition-${n.name}`, log: createLogger('faults', 'silent'), waitForServer: false },
  );
  clients.push(nc);
  return nc;
}

/** Whether n3 says it leads the catalogue's cache stream (after the partition, until it notices it lost its quorum). */
async function n3Leads(): Promise<boolean> {
  try {
    const jsz = (await (
      await fetch(`${node('n3').monitorUrl}/jsz?streams=true`, { signal: AbortSignal.timeout(1_000) })
    ).json()) as {
      account_details?: Array<{ stream_detail?: Array<{ name: string; cluster?: { leader?: string } }> }>;
    };
    const streams = (jsz.account_details ?? []).flatMap((a) => a.stream_detail ?? []);
    return streams.find((st) => st.name === cacheStreamOf('catalogue').name)?.cluster?.leader === 'n3';
  } catch {
    return false;
  }
}

let calls = 0;
/**
 * One request; 'refused' for no answer in time. A write may wait for a stream's new leader: it gets longer than
 * a read.
 */
async function call(
  nc: NatsConnection,
  subject: string,
  request: object,
  timeoutMs = 3_000,
): Promise<ServiceReply | 'refused'> {
  try {
    return await callService(nc, subject, request, {
      token: t.token(),
      correlationId: `cache-partition-${++calls}`,
      timeoutMs,
    });
  } catch {
    return 'refused';
  }
}

it('a replica and a gateway cut off with a minority node answer the price acknowledged on the majority side, or refuse', async () => {
  // The hard case: n3 leads the cluster's JetStream API (it goes on answering it after the partition) and, below,
  // the catalogue's cache stream.
  await metaLeadOn(t, 'n3');
  await eventually(
    async () => ((await t.get('/hospital_charges?store_id=1')).status === 200 ? true : undefined),
    30_000,
  );
  const created = await t.post('/hospital_charges', { store_id: 1, charge_name: 'CBC', charge_type: 'Lab', amount: 1 });
  expect(created.status).toBe(201);
  const id = created.body.charge_id as number;
  // The stack's replica is on any node: one on n1 and one on n3 take its place.
  await t.stack.replica('catalogue', 0).stop();
  await t.stack.addReplica('catalogue', { NATS_URL: node('n1').url });
  await t.stack.addReplica('catalogue', { NATS_URL: node('n3').url });
  const [majority, minority] = [await clientOn(node('n1')), await clientOn(node('n3'))];
  const price = async (nc: NatsConnection) => {
    const reply = await call(nc, LIST.subject, { query: { store_id: '1' } });
    if (reply === 'refused' || reply.status !== 200) return 'refused';
    return (reply.body as unknown as { charges: Array<{ id: number; amount: number }> }).charges.find(
      (c) => c.id === id,
    )?.amount;
  };
  // A gateway on n3 too: its reply cache holds the list, and it asks the replica on n3 when it cannot prove it.
  gatewayOnN3 = await startSecondGateway(t, { NATS_URL: node('n3').url });
  const viaGateway = async () => {
    const res = await t.get('/hospital_charges?store_id=1', { baseUrl: gatewayOnN3!.url }).catch(() => null);
    if (res?.status !== 200) return 'refused';
    return (res.body.charges as Array<{ id: number; amount: number }>).find((c) => c.id === id)?.amount;
  };
  await eventually(async () =>
    (await price(minority)) === 1 && (await price(majority)) === 1 && (await viaGateway()) === 1 ? true : undefined,
  );
  await leadOn(t, cacheStreamOf('catalogue').name, 'n3');

  const counts = {
    acknowledged: 0,
    exact: 0,
    refused: 0,
    stale: 0,
    writesRefused: 0,
    majorityRefused: 0,
    gatewayExact: 0,
    gatewayRefused: 0,
    gatewayStale: 0,
    answeredWhileN3Led: 0,
  };
  let amount = 1;
  const round = async () => {
    // The replica and the gateway on n3 hold the list in memory (while they can prove it current), then the price
    // changes on n1.
    await price(minority);
    await viaGateway();
    const reply = await call(
      majority,
      UPDATE.subject,
      {
        params: { charge_id: String(id) },
        body: { charge_name: 'CBC', charge_type: 'Lab', amount: amount + 1 },
      },
      5_000,
    );
    if (reply === 'refused' || reply.status !== 200) {
      counts.writesRefused++;
      return;
    }
    amount++;
    counts.acknowledged++;
    const led = await n3Leads();
    const seen = await price(minority);
    if (led && seen !== 'refused') counts.answeredWhileN3Led++;
    if (seen === 'refused') counts.refused++;
    else if (seen === amount) counts.exact++;
    else counts.stale++;
    const throughGateway = await viaGateway();
    if (throughGateway === 'refused') counts.gatewayRefused++;
    else if (throughGateway === amount) counts.gatewayExact++;
    else counts.gatewayStale++;
    // The majority side may be slow (new stream leaders) but never stale either.
    const onMajority = await price(majority);
    if (onMajority === 'refused') counts.majorityRefused++;
    else expect(onMajority).toBe(amount);
  };

  // Bounded: cut off for 20 writes acknowledged or 60 s (and the round under way), then at least 4 s after healing
  // and until a write is acknowledged again (at most 30 s). The first writes wait for new stream leaders on the
  // majority side, which takes long on a loaded machine.
  ns.partition();
  const partitionedUntil = Date.now() + 60_000;
  while (Date.now() < partitionedUntil && counts.acknowledged < 20) await round();
  const whilePartitioned = { ...counts };
  ns.heal();
  const healedAt = Date.now();
  const acknowledgedAfterHealing = () => counts.acknowledged - whilePartitioned.acknowledged;
  while (Date.now() - healedAt < 4_000 || (acknowledgedAfterHealing() === 0 && Date.now() - healedAt < 30_000)) {
    await round();
  }
  console.log(JSON.stringify({ test: 'cache partition', whilePartitioned, overall: counts }));

  // Safety: no read, on either side, showed a price from before an acknowledged write.
  expect(counts.stale).toBe(0);
  expect(counts.gatewayStale).toBe(0);
  // Liveness once healed: writes are acknowledged again.
  expect(acknowledgedAfterHealing()).toBeGreaterThan(0);
  // Liveness while cut off is reported, not failed (the issue asks the replica cut off to answer exactly or refuse):
  // with the cut-off side's NATS node unable to reach a stream leader, its reads are refused.
  if (whilePartitioned.acknowledged === 0 || whilePartitioned.exact === 0) {
    console.warn(`cache partition: while cut off ${JSON.stringify(whilePartitioned)}`);
  }
}, 240_000);
