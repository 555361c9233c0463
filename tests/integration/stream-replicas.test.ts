/**
 * Stream replicas against a real three-node cluster: a service's stream set-up
 * sees three nodes, creates its streams with three replicas, and raises a
 * stream it finds with one replica (made on a single server, or before the
 * cluster grew) to three, its durable consumer with it, messages kept. And its
 * routes ask who is there: a nats-server of someone else's, routing in to a
 * node's route port without the route password, joins nothing and sees none of
 * the requests (and their bearer tokens) the cluster carries.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AckPolicy, connect, headers, type Msg, type NatsConnection } from 'nats';
import { eventStreamOf, REF_STREAM } from '@clinic/contracts';
import {
  freeListeningPort,
  ManagedProcess,
  natsServerBinary,
  startLocalInfrastructure,
  waitFor,
  type Infrastructure,
} from '@clinic/devstack';
import { connectNats, createLogger, ensureStream, streamReplicas } from '@clinic/service-kit/internal';

const log = createLogger('replicas-test', 'silent');
let dir: string;
let infra: Infrastructure;
let nc: NatsConnection;
let events: NatsConnection;
let rogue: ManagedProcess | undefined;
let rogueMonitor: number;
const connections: NatsConnection[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'clinic-replicas-'));
  infra = await startLocalInfrastructure({
    dataDir: dir,
    logDir: join(dir, 'logs'),
    natsCluster: 3,
    mongoUrl: 'mongodb://unused/',
  });
  // Streams and consumers are the provisioner's to make; events are billing's to publish.
  nc = await connectNats(
    { url: infra.natsUrl, user: 'provisioner', password: infra.natsPasswords.provisioner },
    { name: 'replicas-test', log },
  );
  events = await connectNats(
    { url: infra.natsUrl, user: 'billing', password: infra.natsPasswords.billing },
    { name: 'replicas-test-events', log },
  );
}, 60_000);
afterAll(async () => {
  await Promise.all(connections.map((c) => c.close()));
  await rogue?.stop();
  await nc?.close();
  await events?.close();
  await infra?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('counts the cluster nodes the server reports', () => {
  expect(streamReplicas(nc)).toBe(3);
});

it('creates a stream with three replicas on three nodes', async () => {
  const jsm = await nc.jetstreamManager();
  await ensureStream(jsm, REF_STREAM, log, streamReplicas(nc));
  const info = await jsm.streams.info(REF_STREAM.name);
  expect(info.config.num_replicas).toBe(3);
  expect(info.cluster?.replicas).toHaveLength(2);
});

it('raises a one-replica stream to three, with its consumer and its messages', async () => {
  const jsm = await nc.jetstreamManager();
  const spec = eventStreamOf('billing');
  await jsm.streams.add({ name: spec.name, subjects: spec.subjects, num_replicas: 1 });
  // An event reader's consumer, as provisioning makes it.
  const reader = 'hospital';
  await jsm.consumers.add(spec.name, { durable_name: reader, ack_policy: AckPolicy.Explicit });
  const js = events.jetstream();
  for (let i = 0; i < 20; i++) await js.publish(spec.subjects[0]!, JSON.stringify({ i }));

  await ensureStream(jsm, spec, log, 3);
  const info = await jsm.streams.info(spec.name);
  expect(info.config.num_replicas).toBe(3);
  expect(info.state.messages).toBe(20);
  // The consumer follows the stream to three replicas once its new peers have caught up.
  await waitFor(
    'the consumer on three nodes',
    async () => (await jsm.consumers.info(spec.name, reader)).cluster?.replicas?.length === 2,
    15_000,
    100,
  );

  // Never lowered: a process that wants fewer leaves it as it is.
  await ensureStream(jsm, spec, log, 1);
  expect((await jsm.streams.info(spec.name)).config.num_replicas).toBe(3);
});

it('refuses to start a cluster on the data of a single server, which nats-server would not carry over', async () => {
  const single = mkdtempSync(join(tmpdir(), 'clinic-single-'));
  try {
    const first = await startLocalInfrastructure({
      dataDir: single,
      logDir: join(single, 'logs'),
      mongoUrl: 'mongodb://unused/',
    });
    await first.stop();
    await expect(
      startLocalInfrastructure({
        dataDir: single,
        logDir: join(single, 'logs'),
        mongoUrl: 'mongodb://unused/',
        natsCluster: 3,
      }),
    ).rejects.toThrow(
      `${single} holds the data of a single NATS server; start it as it was (NATS_CLUSTER), or delete that folder to start afresh.`,
    );
  } finally {
    rmSync(single, { recursive: true, force: true });
  }
});

/** Routes the rogue server holds (its monitoring endpoint). */
async function rogueRoutes(): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${rogueMonitor}/routez`);
  return ((await response.json()) as { num_routes: number }).num_routes;
}

it("refuses a server that routes in without the route password: it sees none of the cluster's requests", async () => {
  const [first, second] = infra.natsNodes;
  const clientPort = await freeListeningPort();
  rogueMonitor = await freeListeningPort();
  const routePort = await freeListeningPort();
  const server = new ManagedProcess({
    name: 'rogue-nats',
    command: natsServerBinary(),
    args: [
      ...['-a', '127.0.0.1', '-p', String(clientPort), '-m', String(rogueMonitor)],
      ...['--cluster_name', 'clinic', '--cluster', `nats://127.0.0.1:${routePort}`],
      ...['--routes', first!.routeUrl!],
    ],
    output: { kind: 'file', path: join(dir, 'logs', 'rogue.log') },
  });
  server.start();
  rogue = server;
  await waitFor('the rogue server', async () => (await fetch(`http://127.0.0.1:${rogueMonitor}/healthz`)).ok, 10_000);
  // Its own client, with no password (its server asks none), listening to everything.
  const eavesdropper = await connect({ servers: `nats://127.0.0.1:${clientPort}` });
  connections.push(eavesdropper);
  const seen: Msg[] = [];
  eavesdropper.subscribe('>', { callback: (_err, msg) => seen.push(msg) });

  // A real route would be up within a second or two: give it several tries to form one.
  await waitFor('the rogue server to route in', async () => (await rogueRoutes()) > 0, 6_000, 200).catch(
    () => undefined,
  );

  // The cluster still works: a request through node 2 reaches billing's queue on node 1.
  const billing = await connectNats(
    { url: first!.url, user: 'billing', password: infra.natsPasswords.billing },
    { name: 'routes-billing', log },
  );
  const gateway = await connectNats(
    { url: second!.url, user: 'gateway', password: infra.natsPasswords.gateway },
    { name: 'routes-gateway', log },
  );
  connections.push(billing, gateway);
  billing.subscribe('billing.bill.list', { queue: 'billing', callback: (_err, msg) => msg.respond('{"status":200}') });
  await billing.flush();
  const h = headers();
  h.set('authorization', 'Bearer a-staff-token');
  await waitFor(
    'the request to cross the cluster',
    async () => {
      const reply = await gateway.request('billing.bill.list', '{}', { headers: h, timeout: 1_000 });
      return reply.string() === '{"status":200}';
    },
    15_000,
    200,
  );
  await eavesdropper.flush();
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(seen.map((msg) => msg.subject)).toEqual([]);
  expect(await rogueRoutes()).toBe(0);
});
