/**
 * The gateway's reply cache over the real NATS server, as the gateway user:
 * what it keeps and when, against the versions a catalogue replica bumps. A
 * reply is kept with the versions the service read it at, and answered only
 * while a read of them after the request came finds them unchanged; writers
 * never wait for it.
 */
import { headers as natsHeaders, type NatsConnection } from 'nats';
import { HeaderNames } from '@clinic/contracts';
import { createLogger, ScopeVersions, splitReply, VersionedCache, type RawReply } from '@clinic/service-kit/internal';
import { ReplyCache } from '../../services/gateway/src/reply-cache';
import { startLocalParts, stopLocalParts, type LocalParts } from './local-parts';

const log = createLogger('reply-cache-test', 'silent');
let parts: LocalParts;
let gatewayNc: NatsConnection;
let replies: ReplyCache;
let versions: ScopeVersions;
let writer: VersionedCache;

beforeAll(async () => {
  parts = await startLocalParts('reply-cache', 'catalogue', 'reply_cache_test', log);
  versions = new ScopeVersions(parts.nc, 'catalogue', log);
  writer = new VersionedCache(versions);
  gatewayNc = await parts.connect('gateway');
  replies = ReplyCache.start(gatewayNc, log, {
    max: 100,
    ttl: 30_000,
    maxEntrySize: 1024,
    maxSize: 4096,
  })!;
}, 120_000);
afterAll(async () => {
  await stopLocalParts(parts);
});

/** A service's shared reply: its bytes and the versions of the scopes it read, as they are now (marked if none). */
async function reply(body: string, scopes: string[]): Promise<RawReply> {
  const headers = natsHeaders();
  headers.set(HeaderNames.cacheScopes, (await writer.stamps(scopes))?.join(',') ?? '');
  return { data: envelope(body), headers };
}
const envelope = (body: string) => new TextEncoder().encode(JSON.stringify({ status: 200, body }));
const keep = (key: string, answer: RawReply) => replies.keep('catalogue', key, answer, splitReply(answer.data));

async function hitOf(key: string): Promise<unknown> {
  const found = await replies.lookup('catalogue', key);
  return found ? JSON.parse(new TextDecoder().decode(found.body)) : null;
}

it('keeps a reply and answers it until its scope has a new version, the read right after the write included', async () => {
  keep('list-1', await reply('v1', ['charges:store:1']));
  expect(await hitOf('list-1')).toBe('v1');
  await writer.bump('charges:store:2');
  expect(await hitOf('list-1')).toBe('v1');
  // Acknowledged once stored; the gateway's next read asks the stream for the versions after it began.
  await writer.bump('charges:store:1');
  expect(await hitOf('list-1')).toBeNull();
});

it('never answers a reply read before a write that came back after it', async () => {
  const before = await reply('before the write', ['charges:store:1']);
  await writer.bump('charges:store:1');
  keep('list-2', before);
  expect(await hitOf('list-2')).toBeNull();
});

it('keeps nothing unmarked, unreadably marked or too large, and no more bytes than its budget', async () => {
  keep('plain', { data: envelope('no headers') });
  expect(await hitOf('plain')).toBeNull();
  const bad = natsHeaders();
  bad.set(HeaderNames.cacheScopes, 'charges:store:3=,a b=1@x');
  keep('bad', { data: envelope('bad'), headers: bad });
  expect(await hitOf('bad')).toBeNull();
  keep('large', await reply('x'.repeat(2048), ['charges:store:3']));
  expect(await hitOf('large')).toBeNull();
  // 4,096 bytes of replies at most: the least recently used goes.
  for (const n of [1, 2, 3, 4, 5]) keep(`kb-${n}`, await reply('k'.repeat(900), ['charges:store:4']));
  const kept = [];
  for (const n of [1, 2, 3, 4, 5]) kept.push((await hitOf(`kb-${n}`)) !== null);
  expect(kept).toEqual([false, true, true, true, true]);
});

it('answers nothing from memory once it can no longer reach the stream, and writes never wait for it', async () => {
  keep('list-9', await reply('v9', ['charges:store:9']));
  expect(await hitOf('list-9')).toBe('v9');
  await gatewayNc.close();
  expect(await hitOf('list-9')).toBeNull();
  const started = performance.now();
  await writer.bump('charges:store:9');
  expect(performance.now() - started).toBeLessThan(1_000);
}, 30_000);
