/**
 * The gateway's reply cache over the real NATS server, as the gateway user:
 * what it keeps and when, against invalidations a catalogue replica stores.
 * A reply is kept only if no invalidation of its scopes reached the gateway
 * while it was asked; it is answered only once the gateway has applied every
 * invalidation the stream holds, and writers never wait for it.
 */
import { headers as natsHeaders, type NatsConnection } from 'nats';
import { HeaderNames } from '@clinic/contracts';
import {
  createLogger,
  splitReply,
  startReplicaCache,
  type RawReply,
  type ReplicaCache,
} from '@clinic/service-kit/internal';
import { ReplyCache, type PendingReply } from '../../services/gateway/src/reply-cache';
import { startLocalParts, stopLocalParts, type LocalParts } from './local-parts';

const log = createLogger('reply-cache-test', 'silent');
let parts: LocalParts;
let gatewayNc: NatsConnection;
let replies: ReplyCache;
let writer: ReplicaCache;

beforeAll(async () => {
  parts = await startLocalParts('reply-cache', 'catalogue', 'reply_cache_test', log);
  writer = await startReplicaCache(parts.nc, 'catalogue', log);
  gatewayNc = await parts.connect('gateway');
  replies = (await ReplyCache.start(gatewayNc, log, {
    maxEntries: 100,
    maxAgeMs: 30_000,
    maxBytes: 1024,
    maxTotalBytes: 4096,
  }))!;
  // Writes before the gateway knows where the stream stands: its first hit then waits for nothing it lacks.
  await writer.cache.bump('charges:store:0');
}, 120_000);
afterAll(async () => {
  await replies?.stop();
  writer?.stop();
  await stopLocalParts(parts);
});

/** A service's shared reply: its bytes and the scopes it depends on. */
function reply(body: string, scopes: string[]): RawReply {
  const headers = natsHeaders();
  headers.set(HeaderNames.cacheScopes, scopes.join(','));
  return { data: envelope(body), headers };
}
const envelope = (body: string) => new TextEncoder().encode(JSON.stringify({ status: 200, body }));
const keep = (pending: PendingReply, answer: RawReply) => replies.keep(pending, answer, splitReply(answer.data));

async function pendingOf(key: string): Promise<PendingReply> {
  const found = await replies.lookup('catalogue', key);
  if (!('pending' in found) || found.pending === null)
    throw new Error(`expected a miss to keep, got ${JSON.stringify(found)}`);
  return found.pending;
}
async function hitOf(key: string): Promise<unknown> {
  const found = await replies.lookup('catalogue', key);
  return 'hit' in found ? JSON.parse(new TextDecoder().decode(found.hit.body)) : null;
}

it('keeps a reply and answers it until its scope is invalidated, the read right after the write included', async () => {
  keep(await pendingOf('list-1'), reply('v1', ['charges:store:1']));
  expect(await hitOf('list-1')).toBe('v1');
  await writer.cache.bump('charges:store:2');
  expect(await hitOf('list-1')).toBe('v1');
  // Acknowledged once stored; the gateway's next read asks the stream where it stands first.
  await writer.cache.bump('charges:store:1');
  expect(await hitOf('list-1')).toBeNull();
});

it('does not keep a reply whose scope was invalidated while it was asked', async () => {
  const pending = await pendingOf('list-2');
  await writer.cache.bump('charges:store:1');
  // Applied by the gateway before the reply comes back.
  await hitOf('anything');
  keep(pending, reply('before the write', ['charges:store:1']));
  expect(await hitOf('list-2')).toBeNull();
});

it('keeps nothing unmarked or too large, and no more bytes than its budget', async () => {
  keep(await pendingOf('plain'), { data: envelope('no headers') });
  expect(await hitOf('plain')).toBeNull();
  keep(await pendingOf('large'), reply('x'.repeat(2048), ['charges:store:3']));
  expect(await hitOf('large')).toBeNull();
  // 4,096 bytes of replies at most: the least recently used goes.
  for (const n of [1, 2, 3, 4, 5]) keep(await pendingOf(`kb-${n}`), reply('k'.repeat(900), ['charges:store:4']));
  const kept = [];
  for (const n of [1, 2, 3, 4, 5]) kept.push((await hitOf(`kb-${n}`)) !== null);
  expect(kept).toEqual([false, true, true, true, true]);
});

it('answers nothing from memory once it can no longer reach the stream, and writes never wait for it', async () => {
  keep(await pendingOf('list-9'), reply('v9', ['charges:store:9']));
  expect(await hitOf('list-9')).toBe('v9');
  await gatewayNc.close();
  expect(await hitOf('list-9')).toBeNull();
  const started = performance.now();
  await writer.cache.bump('charges:store:9');
  expect(performance.now() - started).toBeLessThan(1_000);
}, 30_000);
