/**
 * The gateway's reply cache as forward uses it, over a real NATS server and
 * its cache streams: a read the service marked shareable is answered from
 * memory, per URL and token, until the service bumps a scope it depends on,
 * whatever Cache-Control the client sends; replies without scopes always
 * reach the service.
 */
import type { Msg } from 'nats';
import { HeaderNames } from '@clinic/contracts';
import { createLogger, ScopeVersions, VersionedCache } from '@clinic/service-kit/internal';
import { ask, fileGateway, replyWith } from './gateway-harness';

/** What the stub answers a read of a charge with: its version, per charge id. */
const versions = new Map<string, number>();

/** A charge at its version, marked shareable under its own scope and its branch's, as read after their versions. */
async function answerWithScopes(msg: Msg): Promise<void> {
  const id = (JSON.parse(msg.string()) as { params: { charge_id: string } }).params.charge_id;
  const scopes = [`charges:one:${id}`, 'charges:store:1'];
  const stamps = (await writer.stamps(scopes)) ?? [];
  const version = versions.get(id) ?? 1;
  replyWith(
    msg,
    { status: 200, etag: `"v${version}"`, body: { success: true, charge: { id: Number(id), version } } },
    { [HeaderNames.cacheScopes]: stamps.join(',') },
  );
}

const t = fileGateway('gateway-reply-cache', { env: { REPLY_CACHE_ENTRIES: '100' }, answer: answerWithScopes });
const token = t.token('cashier', 5);
let scopeVersions: ScopeVersions;
let writer: VersionedCache;

beforeAll(async () => {
  scopeVersions = new ScopeVersions(await t.connect('catalogue'), 'catalogue', createLogger('writer', 'silent'));
  writer = new VersionedCache(scopeVersions);
});

const read = (id: number, headers: Record<string, string> = {}, as = token) =>
  ask(t.app, 'GET', `/hospital_charges/${id}`, { token: as, headers });

it('answers a read the service marked shareable from memory, its ETag and 304 too', async () => {
  const first = await read(1);
  const second = await read(1);
  expect(t.catalogue.received).toHaveLength(1);
  expect([second.status, second.headers.etag, second.body]).toEqual([first.status, first.headers.etag, first.body]);
  const unchanged = await read(1, { 'if-none-match': '"v1"' });
  expect([unchanged.status, unchanged.body]).toEqual([304, '']);
  expect(t.catalogue.received).toHaveLength(1);
});

it("keeps each URL's and each token's reply apart", async () => {
  await read(2);
  await read(3);
  await read(2, {}, t.token('cashier', 6));
  await read(2);
  expect(t.catalogue.received.map(({ data }) => data)).toEqual([
    '{"params":{"charge_id":"2"}}',
    '{"params":{"charge_id":"3"}}',
    '{"params":{"charge_id":"2"}}',
  ]);
});

it('asks the service again once it invalidated a scope the reply depends on, and only then', async () => {
  expect((await read(4)).json).toEqual({ success: true, charge: { id: 4, version: 1 } });
  await writer.bump('charges:store:2');
  expect((await read(4)).json).toEqual({ success: true, charge: { id: 4, version: 1 } });
  expect(t.catalogue.received).toHaveLength(1);
  versions.set('4', 2);
  // Acknowledged once stored: the gateway's next read applies it first.
  await writer.bump('charges:one:4');
  const after = await read(4);
  expect([after.headers.etag, after.json]).toEqual(['"v2"', { success: true, charge: { id: 4, version: 2 } }]);
  expect(t.catalogue.received).toHaveLength(2);
});

it("serves a read's Idempotency-Key or If-Match from the same reply (a read takes neither), and forwards every reply without scopes", async () => {
  await read(5);
  await read(5, { 'idempotency-key': 'k-1' });
  await read(5, { 'if-match': '"v1"' });
  expect(t.catalogue.received).toHaveLength(1);
  expect(t.catalogue.received[0]!.headers).not.toHaveProperty('idempotency-key');
  t.catalogue.answer = (msg) => replyWith(msg, { status: 200, body: { success: true, charge: { id: 6 } } });
  await read(6);
  await read(6);
  expect(t.catalogue.received).toHaveLength(3);
});

it('answers a read with Cache-Control: no-cache from the kept reply too: a hit is proved current first', async () => {
  t.catalogue.answer = answerWithScopes;
  const before = t.catalogue.received.length;
  await read(7);
  // What browsers add to conditional and reloading requests (fetch's cache modes), and what a page may set.
  const asksOrigin: Array<Record<string, string>> = [
    { 'cache-control': 'no-cache', pragma: 'no-cache' },
    { 'cache-control': 'max-age=0, no-store' },
  ];
  for (const headers of asksOrigin)
    expect((await read(7, headers)).json).toEqual({ success: true, charge: { id: 7, version: 1 } });
  expect(t.catalogue.received).toHaveLength(before + 1);
  versions.set('7', 2);
  await writer.bump('charges:one:7');
  expect((await read(7, asksOrigin[0])).json).toEqual({ success: true, charge: { id: 7, version: 2 } });
  expect(t.catalogue.received).toHaveLength(before + 2);
});
