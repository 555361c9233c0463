/**
 * The read cache over the real NATS server: a write through one replica is
 * never followed by a stale read through another; a write never waits for a
 * reader, whether the reader is silent, gone or flooded; what arrives on the
 * cache subjects unsent or unreadable is dropped and counted.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { headers, type NatsConnection } from 'nats';
import { cacheStreamOf, cacheSubjectsOf } from '@clinic/contracts';
import { provisionStack } from '@clinic/devstack';
import { createLogger, startReplicaCache, type ReplicaCache } from '@clinic/service-kit/internal';
import { startLocalParts, stopLocalParts, type LocalParts } from './local-parts';

const log = createLogger('cache-test', 'silent');
let parts: LocalParts;
const opened: ReplicaCache[] = [];

beforeAll(async () => {
  parts = await startLocalParts('cache', 'catalogue', 'cache_test', log);
}, 120_000);
afterAll(async () => {
  for (const replica of opened) await replica.stop();
  await stopLocalParts(parts);
});

/** One catalogue replica's cache, on a NATS connection of its own. */
async function replica(options: { maxAgeMs?: number } = {}): Promise<ReplicaCache & { nc: NatsConnection }> {
  const nc = await parts.connect('catalogue');
  const started = await startReplicaCache(nc, 'catalogue', log, options);
  opened.push(started);
  return { ...started, nc };
}

/** A load that counts its calls and answers with the current value of `source`. */
function counter(source: { value: number }) {
  return jest.fn(async () => {
    // What the query saw when it ran; it answers a little later.
    const { value } = source;
    await new Promise((resolve) => setTimeout(resolve, 2));
    return value;
  });
}

it('answers from memory, and every replica with the new value after a write', async () => {
  const [a, b] = [await replica(), await replica()];
  const source = { value: 1 };
  const load = counter(source);
  expect(await a.cache.get('store:1', 'list', load)).toBe(1);
  expect(await b.cache.get('store:1', 'list', load)).toBe(1);
  expect(await b.cache.get('store:1', 'list', load)).toBe(1);
  expect(load).toHaveBeenCalledTimes(2);

  source.value = 2;
  await a.cache.bump('store:1');
  expect(await b.cache.get('store:1', 'list', load)).toBe(2);
  expect(await a.cache.get('store:1', 'list', load)).toBe(2);
  // Another scope is untouched by the invalidation.
  const other = jest.fn(async () => 'other');
  expect(await b.cache.get('store:2', 'list', other)).toBe('other');
  await a.cache.bump('store:1');
  expect(await b.cache.get('store:2', 'list', other)).toBe('other');
  expect(other).toHaveBeenCalledTimes(1);
});

it('never answers a read that began after an acknowledged write with what was there before it', async () => {
  const replicas = [await replica(), await replica(), await replica()];
  const source = { value: 0 };
  const load = counter(source);
  let stale = 0;
  for (let round = 1; round <= 300; round++) {
    const writer = replicas[round % 3]!;
    const reader = replicas[(round + 1) % 3]!;
    // Every replica holds the value before the write, and reads keep loads running while it lands.
    await Promise.all(replicas.map((r) => r.cache.get('store:4', 'list', load)));
    const background = Array.from({ length: 3 }, () => reader.cache.get('store:4', 'list', load));
    source.value = round;
    await writer.cache.bump('store:4');
    if ((await reader.cache.get('store:4', 'list', load)) !== round) stale++;
    await Promise.all(background);
  }
  expect(stale).toBe(0);
  // Most reads were answered from memory: the check did not turn every hit into a load.
  expect(load.mock.calls.length).toBeLessThan(300 * 6);
});

it('acknowledges a write without waiting for a replica that is gone, and that replica answers nothing stale', async () => {
  const writer = await replica();
  const gone = await replica();
  expect(await gone.cache.get('store:6', 'list', async () => 'before')).toBe('before');
  await gone.nc.close();
  await writer.cache.bump('store:6');
  // It can no longer prove its entry current: it loads.
  expect(await gone.cache.get('store:6', 'list', async () => 'from the database')).toBe('from the database');
});

it('coalesces concurrent reads into one load, and keeps no load an invalidation overtook', async () => {
  const { cache } = await replica();
  const source = { value: 7 };
  const load = counter(source);
  const values = await Promise.all(Array.from({ length: 50 }, () => cache.get('store:3', 'list', load)));
  expect(values).toEqual(Array(50).fill(7));
  expect(load).toHaveBeenCalledTimes(1);

  const overtaken = cache.get('store:3b', 'list', load);
  await new Promise((resolve) => setImmediate(resolve)); // its load has read 7
  source.value = 8;
  await cache.bump('store:3b');
  // A read after the invalidation does not join the load that began before it.
  expect(await cache.get('store:3b', 'list', load)).toBe(8);
  expect(await overtaken).toBe(7);
  expect(await cache.get('store:3b', 'list', load)).toBe(8);
  expect(load).toHaveBeenCalledTimes(3);
});

it('shares a failed load’s error with its callers and loads again on the next read', async () => {
  const { cache } = await replica();
  const failing = jest.fn(async () => {
    throw new Error('scan failed');
  });
  const results = await Promise.allSettled([
    cache.get('store:5', 'list', failing),
    cache.get('store:5', 'list', failing),
  ]);
  expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  expect(failing).toHaveBeenCalledTimes(1);
  expect(await cache.get('store:5', 'list', async () => 'recovered')).toBe('recovered');
});

it("drops what is published unread on the cache stream, empties itself, and no writer waits: a service user's garbage", async () => {
  const writer = await replica();
  const reader = await replica();
  const source = { value: 1 };
  const load = counter(source);
  expect(await reader.cache.get('store:8', 'list', load)).toBe(1);
  // A replica of the same service may store anything on its stream: an unreadable invalidation.
  const js = writer.nc.jetstream();
  await js.publish(cacheSubjectsOf('catalogue').invalidations, 'x');
  await js.publish(cacheSubjectsOf('catalogue').invalidations, JSON.stringify({ s: ['a b', 7] }));
  source.value = 2;
  // Whatever it said, it could have been this scope: the reader starts again rather than guess.
  expect(await reader.cache.get('store:8', 'list', load)).toBe(2);
  const started = performance.now();
  await writer.cache.bump('store:8');
  expect(performance.now() - started).toBeLessThan(1_000);
});

it('refuses every other user the cache subjects: nobody but the service and the gateway stores there, nobody republishes', async () => {
  const gateway = await parts.connect('gateway');
  const hospital = await parts.connect('hospital');
  // The gateway stores empty invalidations to learn a clustered stream's latest sequence from a leader with its quorum.
  const ack = await gateway.jetstream().publish(cacheSubjectsOf('catalogue').invalidations, JSON.stringify({ s: [] }));
  expect(ack.stream).toBe('CATALOGUE_CACHE');
  for (const [nc, subject] of [
    [gateway, cacheSubjectsOf('catalogue').stored],
    [hospital, cacheSubjectsOf('catalogue').invalidations],
    [parts.nc, cacheSubjectsOf('catalogue').stored],
    [parts.nc, cacheSubjectsOf('billing').invalidations],
  ] as const) {
    await expect(nc.request(subject, 'x', { timeout: 1_000 })).rejects.toMatchObject({
      code: 'PERMISSIONS_VIOLATION',
    });
  }
});

it("takes no sequence from a publisher's headers: a forged one neither moves the cache ahead nor keeps its entries", async () => {
  const writer = await replica();
  const reader = await replica();
  const source = { value: 1 };
  const load = counter(source);
  expect(await reader.cache.get('store:9', 'list', load)).toBe(1);
  const jsm = await (await parts.connect('provisioner')).jetstreamManager({ checkAPI: false });
  const stream = cacheStreamOf('catalogue').name;
  const current = (await jsm.streams.info(stream)).state.last_seq;
  // The server adds its own sequence headers after these: a reader taking the first would jump far ahead.
  const forged = headers();
  forged.set('Nats-Sequence', '999999999');
  forged.set('Nats-Last-Sequence', String(current));
  forged.set('Nats-Stream', stream);
  await writer.nc.jetstream().publish(cacheSubjectsOf('catalogue').invalidations, JSON.stringify({ s: [] }), {
    headers: forged,
  });
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(reader.cache.applied).toBeLessThanOrEqual((await jsm.streams.info(stream)).state.last_seq);
  // A change whose invalidation this reader has not applied (as if it were on its way) is not hidden by the entry.
  source.value = 2;
  expect(await reader.cache.get('store:9', 'list', load)).toBe(2);
});

// Last: it makes the stream anew under every replica still open.
it('starts again when its stream was made anew: a sequence behind what it applied proves nothing', async () => {
  const reader = await replica();
  const source = { value: 1 };
  const load = counter(source);
  await reader.cache.bump('store:10');
  expect(await reader.cache.get('store:10', 'list', load)).toBe(1);
  // Its store lost (no user may delete a stream): the server starts empty and provisioning makes the streams anew.
  await parts.infra.nats!.stop();
  rmSync(join(parts.dir, 'nats', 'jetstream'), { recursive: true, force: true });
  await parts.infra.startNats();
  await provisionStack(parts.infra, {});
  // Once the reader has reconnected (a flush fails while it has not).
  for (
    let tries = 0;
    !(await reader.nc.flush().then(
      () => true,
      () => false,
    )) && tries < 100;
    tries++
  )
    await new Promise((resolve) => setTimeout(resolve, 50));
  // A write whose invalidation went with the old stream: the reader can no longer prove its entry.
  source.value = 2;
  expect(await reader.cache.get('store:10', 'list', load)).toBe(2);
  // And it follows the new stream from there.
  expect(await reader.cache.get('store:10', 'list', load)).toBe(2);
  source.value = 3;
  await reader.cache.bump('store:10');
  expect(await reader.cache.get('store:10', 'list', load)).toBe(3);
});
