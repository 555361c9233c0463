/**
 * The gateway's reply cache over the real NATS server, as the gateway user:
 * what it keeps and when, against invalidations of a catalogue writer.
 * A reply is kept only if no invalidation of its scopes reached the gateway
 * while it was asked, and only if the service had applied every invalidation
 * of them the gateway knew of (a lagging replica's answer is not kept); it is
 * answered only while the gateway's lease holds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { headers as natsHeaders, type NatsConnection } from 'nats';
import { HeaderNames } from '@clinic/contracts';
import { startLocalInfrastructure, type Infrastructure } from '@clinic/devstack';
import {
  CacheCoherence,
  connectNats,
  createLogger,
  splitReply,
  VersionedCache,
  type RawReply,
} from '@clinic/service-kit/internal';
import { ReplyCache, type PendingReply } from '../../services/gateway/src/reply-cache';

const log = createLogger('reply-cache-test', 'silent');
let dir: string;
let infra: Infrastructure;
let gatewayNc: NatsConnection;
let writerNc: NatsConnection;
let replies: ReplyCache;
let writer: CacheCoherence;
let writes: VersionedCache;

const until = async (check: () => boolean) => {
  const giveUpAt = Date.now() + 10_000;
  while (!check() && Date.now() < giveUpAt) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(check()).toBe(true);
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'clinic-reply-cache-'));
  infra = await startLocalInfrastructure({ dataDir: dir, logDir: join(dir, 'logs') });
  const connect = (user: 'gateway' | 'catalogue') =>
    connectNats({ url: infra.natsUrl, user, password: infra.natsPasswords[user] }, { name: user, log });
  gatewayNc = await connect('gateway');
  writerNc = await connect('catalogue');
  writer = await CacheCoherence.start({ nc: writerNc, service: 'catalogue', log, member: true });
  writes = new VersionedCache(writer, log);
  const started = await ReplyCache.start(gatewayNc, log, {
    maxEntries: 100,
    maxAgeMs: 30_000,
    maxBytes: 1024,
    maxTotalBytes: 4096,
  });
  replies = started!;
  // Hot once the gateway's first lease renewal came back.
  await until(() => {
    const found = replies.lookup('catalogue', 'warm-up');
    return 'pending' in found && found.pending !== null;
  });
}, 120_000);
afterAll(async () => {
  await replies?.stop();
  await writer?.stop();
  await gatewayNc?.close();
  await writerNc?.close();
  await infra?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A service's shared reply: its bytes, its scopes and the stream sequence it is current to. */
function reply(body: string, scopes: string[], position: number): RawReply {
  const headers = natsHeaders();
  headers.set(HeaderNames.cacheScopes, scopes.join(','));
  headers.set(HeaderNames.cachePosition, String(position));
  return { data: envelope(body), headers };
}
const envelope = (body: string) => new TextEncoder().encode(JSON.stringify({ status: 200, body }));
const keep = (pending: PendingReply, answer: RawReply) => replies.keep(pending, answer, splitReply(answer.data));

const pendingOf = (key: string) => {
  const found = replies.lookup('catalogue', key);
  if (!('pending' in found) || found.pending === null)
    throw new Error(`expected a miss to keep, got ${JSON.stringify(found)}`);
  return found.pending;
};
const hitOf = (key: string) => {
  const found = replies.lookup('catalogue', key);
  return 'hit' in found ? JSON.parse(new TextDecoder().decode(found.hit.body)) : null;
};

it('keeps a current reply and answers it until its scope is invalidated', async () => {
  keep(pendingOf('list-1'), reply('v1', ['charges:store:1'], writer.position));
  expect(hitOf('list-1')).toBe('v1');
  await writes.bump('charges:store:2');
  expect(hitOf('list-1')).toBe('v1');
  // The write is acknowledged once the gateway confirmed it dropped the entry.
  await writes.bump('charges:store:1');
  expect(hitOf('list-1')).toBeNull();
});

it('does not keep a reply whose scope was invalidated while it was asked', async () => {
  const pending = pendingOf('list-2');
  await writes.bump('charges:store:1');
  keep(pending, reply('before the write', ['charges:store:1'], writer.position));
  expect(hitOf('list-2')).toBeNull();
});

it("does not keep a lagging replica's reply: one that had not applied an invalidation the gateway had", async () => {
  await writes.bump('charges:one:7');
  const pending = pendingOf('one-7');
  // The invalidation's own sequence: the writer's position may already be past it (a lease renewal after it).
  const applied = pending.mark;
  keep(pending, reply('from a replica behind', ['charges:one:7'], applied - 1));
  expect(hitOf('one-7')).toBeNull();
  keep(pendingOf('one-7'), reply('current', ['charges:one:7'], applied));
  expect(hitOf('one-7')).toBe('current');
});

it('keeps nothing unmarked or too large, and no more bytes than its budget', async () => {
  keep(pendingOf('plain'), { data: envelope('no headers') });
  expect(hitOf('plain')).toBeNull();
  keep(pendingOf('large'), reply('x'.repeat(2048), ['charges:store:3'], writer.position));
  expect(hitOf('large')).toBeNull();
  // 4,096 bytes of replies at most: the least recently used goes.
  for (const n of [1, 2, 3, 4, 5])
    keep(pendingOf(`kb-${n}`), reply('k'.repeat(900), ['charges:store:4'], writer.position));
  expect([1, 2, 3, 4, 5].map((n) => hitOf(`kb-${n}`) !== null)).toEqual([false, true, true, true, true]);
});

it('answers nothing from memory once its lease runs out, and a write then completes without it', async () => {
  keep(pendingOf('list-9'), reply('v9', ['charges:store:9'], writer.position));
  expect(hitOf('list-9')).toBe('v9');
  // Cut off: no renewal reaches the stream, the lease runs out within 2 s.
  await gatewayNc.close();
  await until(() => {
    const found = replies.lookup('catalogue', 'list-9');
    return 'pending' in found && found.pending === null;
  });
  // A write completes (it would fail after INVALIDATION_WAIT_MAX_MS) though the gateway never confirms it.
  await writes.bump('charges:store:9');
}, 30_000);
