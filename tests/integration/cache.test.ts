/**
 * The read cache kept coherent over the real NATS server: a write through one
 * replica is never followed by a stale read through another, a replica that
 * cannot renew its lease is waited out, and concurrent reads share one load.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from 'nats';
import { startLocalInfrastructure, type Infrastructure } from '@clinic/devstack';
import { CacheCoherence, connectNats, createLogger, VersionedCache } from '@clinic/service-kit/internal';

const log = createLogger('cache-test', 'silent');
let dir: string;
let infra: Infrastructure;
const opened: Array<{ nc: NatsConnection; coherence: CacheCoherence }> = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'clinic-cache-'));
  infra = await startLocalInfrastructure({ dataDir: dir, logDir: join(dir, 'logs') });
}, 120_000);
afterAll(async () => {
  for (const { nc, coherence } of opened) {
    await coherence.stop();
    if (!nc.isClosed()) await nc.close();
  }
  await infra?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** One catalogue replica's cache, on a NATS connection of its own; hot once its first lease is renewed. */
async function replica(options: { maxAgeMs?: number; member?: boolean } = {}) {
  const nc = await connectNats(
    { url: infra.natsUrl, user: 'catalogue', password: infra.natsPasswords.catalogue },
    { name: 'cache-test', log },
  );
  const coherence = await CacheCoherence.start({ nc, service: 'catalogue', log, member: options.member ?? true });
  opened.push({ nc, coherence });
  const giveUpAt = Date.now() + 10_000;
  while (options.member !== false && !coherence.hot() && Date.now() < giveUpAt)
    await new Promise((resolve) => setTimeout(resolve, 10));
  return { nc, coherence, cache: new VersionedCache(coherence, log, { maxAgeMs: options.maxAgeMs }) };
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

it('answers from memory while the lease holds, and every replica with the new value after a write', async () => {
  const [a, b] = [await replica(), await replica()];
  expect(a.coherence.hot() && b.coherence.hot()).toBe(true);
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
});

it('acknowledges a write only once a replica that cannot renew its lease stopped answering from memory', async () => {
  const writer = await replica();
  const cut = await replica();
  expect(await cut.cache.get('store:6', 'list', async () => 'before')).toBe('before');
  // Cut off without a word: it neither confirms the invalidation nor gives its lease up.
  await cut.nc.close();
  expect(cut.coherence.hot()).toBe(true);
  await writer.cache.bump('store:6');
  expect(cut.coherence.hot()).toBe(false);
  expect(await cut.cache.get('store:6', 'list', async () => 'from the database')).toBe('from the database');
});

it('answers a process without a lease from the database every time', async () => {
  const writerOnly = await replica({ member: false });
  const load = counter({ value: 3 });
  expect(await writerOnly.cache.get('store:7', 'list', load)).toBe(3);
  expect(await writerOnly.cache.get('store:7', 'list', load)).toBe(3);
  expect(load).toHaveBeenCalledTimes(2);
});

it('coalesces concurrent reads into one load, and keeps no load an invalidation overtook', async () => {
  const { cache } = await replica();
  const source = { value: 7 };
  const load = counter(source);
  const values = await Promise.all(Array.from({ length: 50 }, () => cache.get('store:3', 'list', load)));
  expect(values).toEqual(Array(50).fill(7));
  expect(load).toHaveBeenCalledTimes(1);

  const overtaken = cache.get('store:3b', 'list', load);
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

it('answers an aged entry at once and refreshes it behind the answer, keeping it when the refresh fails', async () => {
  const { cache } = await replica({ maxAgeMs: 50 });
  const source = { value: 1 };
  let fail = false;
  const load = jest.fn(async () => {
    if (fail) throw new Error('database away');
    return source.value;
  });
  expect(await cache.get('store:aged', 'summary', load)).toBe(1);
  // A lost invalidation: the data changed and no replica was told.
  source.value = 2;
  await new Promise((resolve) => setTimeout(resolve, 60));
  expect(await cache.get('store:aged', 'summary', load)).toBe(1);
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(await cache.get('store:aged', 'summary', load)).toBe(2);
  expect(load).toHaveBeenCalledTimes(2);

  fail = true;
  await new Promise((resolve) => setTimeout(resolve, 60));
  expect(await cache.get('store:aged', 'summary', load)).toBe(2);
  await new Promise((resolve) => setTimeout(resolve, 10));
  expect(await cache.get('store:aged', 'summary', load)).toBe(2);
  // Each read of the aged entry tried a refresh; neither replaced it.
  expect(load).toHaveBeenCalledTimes(4);
});
