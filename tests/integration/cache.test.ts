/**
 * The versioned read cache against the real database: read-your-writes across
 * two replicas, and coalescing of concurrent reads.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { startLocalInfrastructure, type Infrastructure } from '@clinic/devstack';
import { createLogger, VersionedCache } from '@clinic/service-kit';

const log = createLogger('cache-test', 'silent');
let dir: string;
let infra: Infrastructure;
let mongo: MongoClient;
let db: Db;
const versionReads: CommandStartedEvent[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'clinic-cache-'));
  infra = await startLocalInfrastructure({ dataDir: dir, logDir: join(dir, 'logs') });
  mongo = await MongoClient.connect(infra.mongoUrl, { serverSelectionTimeoutMS: 2000, monitorCommands: true });
  mongo.on('commandStarted', (event) => {
    if (event.commandName === 'find' && event.command.find === 'cache_versions') versionReads.push(event);
  });
  db = mongo.db('cache_test');
});
afterAll(async () => {
  await mongo?.close();
  await infra?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A load that counts its calls and answers with the current value of `source`. */
function counter(source: { value: number }) {
  const load = jest.fn(async () => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    return source.value;
  });
  return load;
}

it('answers every replica with what the database holds after a write', async () => {
  const replicaA = new VersionedCache(db, log);
  const replicaB = new VersionedCache(db, log);
  const source = { value: 1 };
  const load = counter(source);
  expect(await replicaA.get('store:1', 'list', load)).toBe(1);
  expect(await replicaB.get('store:1', 'list', load)).toBe(1);
  expect(await replicaB.get('store:1', 'list', load)).toBe(1);
  expect(load).toHaveBeenCalledTimes(2);

  source.value = 2;
  await replicaA.bump('store:1');
  expect(await replicaB.get('store:1', 'list', load)).toBe(2);
  expect(await replicaA.get('store:1', 'list', load)).toBe(2);
  // Another scope is untouched by the bump.
  expect(await replicaA.get('store:2', 'list', async () => 'other')).toBe('other');
});

it('coalesces concurrent reads: few token reads and one load for fifty callers', async () => {
  const cache = new VersionedCache(db, log);
  const source = { value: 7 };
  const load = counter(source);
  versionReads.length = 0;
  const values = await Promise.all(Array.from({ length: 50 }, () => cache.get('store:3', 'list', load)));
  expect(values).toEqual(Array(50).fill(7));
  expect(load).toHaveBeenCalledTimes(1);
  expect(versionReads.length).toBeGreaterThanOrEqual(1);
  expect(versionReads.length).toBeLessThanOrEqual(3);
});

it('never answers a read that began after a write with what was there before it', async () => {
  const writer = new VersionedCache(db, log);
  const reader = new VersionedCache(db, log);
  const source = { value: 0 };
  const load = counter(source);
  for (let round = 1; round <= 20; round++) {
    // Reads keep the reader's token round busy while the write lands.
    const background = Array.from({ length: 5 }, () => reader.get('store:4', 'list', load));
    source.value = round;
    await writer.bump('store:4');
    expect(await reader.get('store:4', 'list', load)).toBe(round);
    await Promise.all(background);
  }
});

it('shares a failed load’s error with its callers and loads again on the next read', async () => {
  const cache = new VersionedCache(db, log);
  const failing = jest.fn(async () => {
    throw new Error('scan failed');
  });
  const results = await Promise.allSettled([
    cache.get('store:5', 'list', failing),
    cache.get('store:5', 'list', failing),
  ]);
  expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  expect(await cache.get('store:5', 'list', async () => 'recovered')).toBe('recovered');
});

it('answers an aged entry at once and refreshes it behind the answer', async () => {
  const cache = new VersionedCache(db, log, { maxAgeMs: 50 });
  const source = { value: 1 };
  const load = counter(source);
  expect(await cache.get('store:aged', 'summary', load)).toBe(1);
  // A lost bump: the data changed but the token did not.
  source.value = 2;
  await new Promise((resolve) => setTimeout(resolve, 60));
  expect(await cache.get('store:aged', 'summary', load)).toBe(1);
  expect(load).toHaveBeenCalledTimes(2);
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(await cache.get('store:aged', 'summary', load)).toBe(2);
  expect(load).toHaveBeenCalledTimes(2);
});

it('keeps an aged entry when its background refresh fails', async () => {
  const cache = new VersionedCache(db, log, { maxAgeMs: 50 });
  let fail = false;
  const load = jest.fn(async () => {
    if (fail) throw new Error('database away');
    return 'kept';
  });
  expect(await cache.get('store:refresh-fails', 'summary', load)).toBe('kept');
  fail = true;
  await new Promise((resolve) => setTimeout(resolve, 60));
  expect(await cache.get('store:refresh-fails', 'summary', load)).toBe('kept');
  await new Promise((resolve) => setTimeout(resolve, 10));
  expect(await cache.get('store:refresh-fails', 'summary', load)).toBe('kept');
  expect(load).toHaveBeenCalledTimes(3);
});
