/**
 * The read cache over the real NATS server: a write through one replica is
 * never followed by a stale read through another; a write never waits for a
 * reader, whether the reader is silent or gone; what a publisher stores on the
 * cache stream can only make reads miss.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { headers, type NatsConnection } from 'nats';

import { cacheSubjectsOf, JS } from '@clinic/contracts';
import { provisionStack } from '@clinic/devstack';
import { createLogger, ScopeVersions, VersionedCache } from '@clinic/service-kit/internal';
import { startLocalParts, stopLocalParts, type LocalParts } from './local-parts';

const log = createLogger('cache-test', 'silent');
let parts: LocalParts;

beforeAll(async () => {
  parts = await startLocalParts('cache', 'catalogue', 'cache_test', log);
}, 120_000);
afterAll(async () => {
  await stopLocalParts(parts);
});

/** One catalogue replica's cache, on a NATS connection of its own. */
async function replica(): Promise<{ cache: VersionedCache; nc: NatsConnection }> {
  const nc = await parts.connect('catalogue');
  return { cache: new VersionedCache(new ScopeVersions(nc, 'catalogue', log)), nc };
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
  // Another scope is untouched by the write.
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

it('coalesces concurrent reads into one load, and joins no load a write overtook', async () => {
  const { cache } = await replica();
  const source = { value: 7 };
  const load = counter(source);
  // Scopes with a version (a read of a scope without one marks it first, and concurrent first reads may each do so).
  await cache.bump('store:3', 'store:3b');
  const values = await Promise.all(Array.from({ length: 50 }, () => cache.get('store:3', 'list', load)));
  expect(values).toEqual(Array(50).fill(7));
  expect(load).toHaveBeenCalledTimes(1);

  const overtaken = cache.get('store:3b', 'list', load);
  while (load.mock.calls.length < 2) await new Promise((resolve) => setImmediate(resolve)); // its load has read 7
  source.value = 8;
  await cache.bump('store:3b');
  // A read after the write does not join the load that began before it.
  expect(await cache.get('store:3b', 'list', load)).toBe(8);
  expect(await overtaken).toBe(7);
  expect(await cache.get('store:3b', 'list', load)).toBe(8);
  expect(load).toHaveBeenCalledTimes(3);
});

it('shares a failed load’s error with its callers and loads again on the next read', async () => {
  const { cache } = await replica();
  await cache.bump('store:5');
  const failing = jest.fn(async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
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

it('makes reads miss, and holds no writer, with what a service user stores on its stream: empty marks, forged headers, a status', async () => {
  const writer = await replica();
  const reader = await replica();
  const source = { value: 1 };
  const load = counter(source);
  const scopes = ['store:8', 'store:8b'];
  await writer.cache.bump(...scopes);
  expect(await reader.cache.get(scopes, 'list', load)).toBe(1);
  // A replica of the same service may store anything on its stream: empty, or with the server's own headers forged.
  const js = writer.nc.jetstream();
  await js.publish(cacheSubjectsOf('catalogue').version('store:8'), '');
  source.value = 2;
  expect(await reader.cache.get(scopes, 'list', load)).toBe(2);
  const forged = headers();
  forged.set('Nats-Sequence', '1');
  forged.set('Nats-Subject', cacheSubjectsOf('catalogue').version('store:other'));
  forged.set('Nats-Num-Pending', '0');
  await js.publish(cacheSubjectsOf('catalogue').version('store:8b'), 'x', { headers: forged });
  source.value = 3;
  // The server's own headers come last: the forged ones are not read, and the mark is a new version like any other.
  expect(await reader.cache.get(scopes, 'list', load)).toBe(3);
  expect(await reader.cache.get(scopes, 'list', load)).toBe(3);
  // Empty, under a status line of 503 (which nats.js's requests read as "no responders"): the server keeps no status.
  await js.publish(cacheSubjectsOf('catalogue').version('store:8'), '', { headers: headers(503, 'No Responders') });
  source.value = 4;
  expect(await reader.cache.get(scopes, 'list', load)).toBe(4);
  expect(await reader.cache.get(scopes, 'list', load)).toBe(4);
  expect(load).toHaveBeenCalledTimes(4);
  const started = performance.now();
  await writer.cache.bump('store:8');
  expect(performance.now() - started).toBeLessThan(1_000);
});

it('reads the versions of more scopes than the server answers at once (1,024) in more than one request', async () => {
  const nc = await parts.connect('catalogue');
  const versions = new ScopeVersions(nc, 'catalogue', log);
  const scopes = Array.from({ length: 1_500 }, (_, i) => `many:${i}`);
  // The limit counts the marks found: each of these has one (stored 100 at a time, as writes store a few each).
  for (let i = 0; i < scopes.length; i += 100) await versions.bump(scopes.slice(i, i + 100));
  const read = await versions.of(scopes);
  expect(scopes.filter((scope) => !/^\d+@/.test(read.get(scope) ?? ''))).toEqual([]);
});

it('refuses every other user the cache subjects: only the service marks its scopes, the gateway only checks', async () => {
  const gateway = await parts.connect('gateway');
  const hospital = await parts.connect('hospital');
  // The gateway stores check marks to learn how far a clustered stream's current replicas have come.
  const ack = await gateway.jetstream().publish(cacheSubjectsOf('catalogue').check, '1');
  expect(ack.stream).toBe('CATALOGUE_CACHE');
  for (const [nc, subject] of [
    [gateway, cacheSubjectsOf('catalogue').version('store:1')],
    [hospital, cacheSubjectsOf('catalogue').check],
    [hospital, JS.directGet('CATALOGUE_CACHE')],
    [parts.nc, cacheSubjectsOf('billing').version('store:1')],
  ] as const) {
    await expect(nc.request(subject, 'x', { timeout: 1_000 })).rejects.toMatchObject({
      code: 'PERMISSIONS_VIOLATION',
    });
  }
});

// Last: it makes the stream anew under every replica still open.
it('proves nothing kept with a stream that was made anew: a version names its sequence and its time', async () => {
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
  // A write whose mark went with the old stream: the reader can no longer prove its entry.
  source.value = 2;
  expect(await reader.cache.get('store:10', 'list', load)).toBe(2);
  // And it keeps what it reads on the new stream.
  expect(await reader.cache.get('store:10', 'list', load)).toBe(2);
  source.value = 3;
  await reader.cache.bump('store:10');
  expect(await reader.cache.get('store:10', 'list', load)).toBe(3);
});
