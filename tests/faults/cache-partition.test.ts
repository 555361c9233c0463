/**
 * The partition proof: hot reads stay exact while one catalogue replica is cut
 * off from the cluster's majority. A three-node NATS cluster, n3 in a network
 * namespace; one catalogue replica on n1 only, another on n3 only, both
 * holding the charge list in memory. The catalogue's cache stream is led from
 * n3 when n3 is partitioned away, so that n3 goes on answering for the stream
 * until it notices it lost its quorum. A client on n1 changes the price (the
 * replica on n1 answers, through the majority's new leader) and, once the
 * change is acknowledged, a client on n3 reads the list, which only the
 * replica on n3 can answer (NATS keeps a request on its node's queue
 * subscribers, and routes are cut). That replica must answer the new price
 * (from the database) or refuse; never the price it held.
 */
import type { NatsConnection } from 'nats';
import { cacheStreamOf, HTTP_ROUTES, type ServiceReply } from '@clinic/contracts';
import { callService, connectNats, createLogger } from '@clinic/service-kit';
import type { NatsNode } from '@clinic/devstack';
import { eventually, type TestStack } from '../e2e/harness';
import { NetnsNode } from './netns';
import { leadOn, startWithThirdNodeIn, stopWithThirdNodeIn } from './partitioned-cluster';

let ns: NetnsNode;
let t: TestStack;
const clients: NatsConnection[] = [];

beforeAll(async () => {
  ns = NetnsNode.create();
  t = await startWithThirdNodeIn(ns);
}, 120_000);

afterAll(() => stopWithThirdNodeIn(ns, t, clients), 60_000);

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

it('a replica cut off with a minority node answers the price acknowledged on the majority side, or refuses', async () => {
  const created = await t.post('/hospital_charges', { store_id: 1, charge_name: 'CBC', charge_type: 'Lab', amount: 1 });
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
  await eventually(async () => ((await price(minority)) === 1 && (await price(majority)) === 1 ? true : undefined));
  // The hard case: the cache stream's leader is the node cut off, so it answers for the stream until it notices.
  await leadOn(t, cacheStreamOf('catalogue').name, 'n3');

  const counts = { acknowledged: 0, exact: 0, refused: 0, stale: 0, writesRefused: 0, majorityRefused: 0 };
  let amount = 1;
  const round = async () => {
    // The replica on n3 holds the list in memory (while it can prove it current), then the price changes on n1.
    await price(minority);
    const reply = await call(
      majority,
      UPDATE.subject,
      {
        params: { charge_id: String(id) },
        body: { charge_name: 'CBC', charge_type: 'Lab', amount: amount + 1 },
      },
      20_000,
    );
    if (reply === 'refused' || reply.status !== 200) {
      counts.writesRefused++;
      return;
    }
    amount++;
    counts.acknowledged++;
    const seen = await price(minority);
    if (seen === 'refused') counts.refused++;
    else if (seen === amount) counts.exact++;
    else counts.stale++;
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
  // Liveness once healed: writes are acknowledged again.
  expect(acknowledgedAfterHealing()).toBeGreaterThan(0);
  // Liveness while cut off is reported, not failed (the issue asks the replica cut off to answer exactly or refuse):
  // with the cut-off side's NATS node unable to reach a stream leader, its reads are refused.
  if (whilePartitioned.acknowledged === 0 || whilePartitioned.exact === 0) {
    console.warn(`cache partition: while cut off ${JSON.stringify(whilePartitioned)}`);
  }
}, 180_000);
