/**
 * The identity provider's key store (auth/jwks.ts) against a real HTTP server
 * serving a key set, on a clock the test moves: the last good set outlives an
 * outage until its stale limit, a new `kid` is fetched at once, and forged
 * `kid`s cost at most one fetch each per interval and one a global interval.
 */
import { generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JwksKeyStore, type KeyStoreOptions } from '../src/auth/jwks';
import type { Logger } from '../src/process/logger';

function rsaKey(kid: string): { jwk: JsonWebKey; pem: string } {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    jwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' },
    pem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

const first = rsaKey('first');
const second = rsaKey('second');
const third = rsaKey('third');
/** What the provider serves now: its keys, or a failure status. */
let serving: { keys: JsonWebKey[] } | { status: number } = { keys: [first.jwk] };
let fetches = 0;
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((_request, response) => {
    fetches++;
    if ('status' in serving) response.writeHead(serving.status).end();
    else response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(serving));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const MINUTE = 60_000;
let clock: number;
let warnings: Array<Record<string, unknown>>;

function store(options: Partial<KeyStoreOptions> = {}): JwksKeyStore {
  clock = Date.UTC(2095, 0, 1);
  fetches = 0;
  serving = { keys: [first.jwk] };
  warnings = [];
  const log = { warn: (fields: Record<string, unknown>) => warnings.push(fields), info: () => undefined };
  return new JwksKeyStore({
    url,
    maxAgeMs: 10 * MINUTE,
    staleMaxMs: 24 * 60 * MINUTE,
    unknownKidIntervalMs: 30_000,
    globalIntervalMs: 100,
    log: log as unknown as Logger,
    now: () => clock,
    ...options,
  });
}

const header = (kid: string) => ({ header: { alg: 'RS256', kid } });
/** Lets a fetch started in the background end. */
const settled = async (keys: JwksKeyStore) => {
  for (let i = 0; i < 100 && (keys as unknown as { fetching: unknown }).fetching; i++)
    await new Promise((resolve) => setTimeout(resolve, 20));
};

it('hands out the key a token names, fetched once, and fetches again in the background once it is too old', async () => {
  const keys = store();
  expect(await keys.resolve(header('first'))).toBe(first.pem);
  expect(await keys.resolve(header('first'))).toBe(first.pem);
  expect(fetches).toBe(1);
  expect(keys.status()).toMatchObject({ status: 'ok', keys: 1, fetched_at: '2095-01-01T00:00:00.000Z' });
  // A key the provider removed stops verifying once the set is fetched again.
  serving = { keys: [second.jwk] };
  clock += 10 * MINUTE + 1;
  expect(keys.usable()).toBeUndefined();
  await settled(keys);
  expect(fetches).toBe(2);
  await expect(keys.resolve(header('first'))).rejects.toThrow('no key of the identity provider matches the token');
  expect(await keys.resolve(header('second'))).toBe(second.pem);
});

it('keeps verifying with the last good set while the provider fails, says so, and refuses past the stale limit', async () => {
  const keys = store();
  expect(await keys.resolve(header('first'))).toBe(first.pem);
  serving = { status: 503 };
  clock += 11 * MINUTE;
  expect(keys.usable()).toBeUndefined();
  await settled(keys);
  expect(await keys.resolve(header('first'))).toBe(first.pem);
  expect(keys.status()).toEqual({
    status: 'unreachable',
    keys: 1,
    fetched_at: '2095-01-01T00:00:00.000Z',
    usable_until: '2095-01-02T00:00:00.000Z',
    last_failure: { at: '2095-01-01T00:11:00.000Z', error: 'HTTP 503', failures: 1 },
  });
  expect(warnings).toEqual([
    { jwks_url: url, reason: 'max_age', error: 'HTTP 503', keys_usable_until: '2095-01-02T00:00:00.000Z' },
  ]);
  // The failure is retried once per interval, not on every request.
  expect(keys.usable()).toBeUndefined();
  await settled(keys);
  expect(fetches).toBe(2);
  // Past the stale limit: every token is refused while the provider stays down.
  clock += 24 * 60 * MINUTE;
  await expect(keys.usable()).rejects.toThrow("the identity provider's keys are not available");
  await expect(keys.resolve(header('first'))).rejects.toThrow();
  expect(keys.status()).toMatchObject({ status: 'expired', last_failure: { failures: 3 } });
  // The provider back: the next token fetches the keys and is taken.
  serving = { keys: [first.jwk] };
  await keys.usable();
  expect(await keys.resolve(header('first'))).toBe(first.pem);
  expect(keys.status()).toMatchObject({ status: 'ok', fetched_at: new Date(clock).toISOString() });
  expect(keys.status().last_failure).toBeUndefined();
});

it('fetches at once for a new kid; a forged kid costs one fetch per interval, all of them one per global interval', async () => {
  const keys = store();
  expect(await keys.resolve(header('first'))).toBe(first.pem);
  // A rotation: the new key is taken at its first use.
  serving = { keys: [second.jwk, first.jwk] };
  expect(await keys.resolve(header('second'))).toBe(second.pem);
  expect(fetches).toBe(2);
  // Forty forged kids at once share one fetch.
  const forged = Array.from({ length: 40 }, (_, i) => keys.resolve(header(`forged-${i}`)));
  for (const result of await Promise.allSettled(forged)) expect(result.status).toBe('rejected');
  expect(fetches).toBe(3);
  // The same kids again within their interval: no fetch at all.
  for (let i = 0; i < 40; i++) await expect(keys.resolve(header(`forged-${i}`))).rejects.toThrow();
  expect(fetches).toBe(3);
  // Once their interval has passed, they may ask again, one fetch for all that come together.
  clock += 30_000;
  const again = Array.from({ length: 40 }, (_, i) => keys.resolve(header(`forged-${i}`)));
  await Promise.allSettled(again);
  expect(fetches).toBe(4);
  // A real rotation right after the forged kids' fetch: its new kid is fetched at once (after the global
  // interval), not refused as one more unknown kid.
  serving = { keys: [third.jwk, second.jwk] };
  expect(await keys.resolve(header('third'))).toBe(third.pem);
  expect(fetches).toBe(5);
});

it('refuses every token while it has never fetched a set, and fetches at most once per global interval', async () => {
  const keys = store();
  serving = { status: 500 };
  await expect(keys.resolve(header('first'))).rejects.toThrow("the identity provider's keys are not available");
  expect(keys.status()).toMatchObject({ status: 'expired', keys: 0, fetched_at: null, usable_until: null });
  expect(warnings[0]).toMatchObject({ reason: 'initial', keys_usable_until: null });
  await Promise.allSettled(Array.from({ length: 20 }, () => keys.resolve(header('first'))));
  expect(fetches).toBe(2);
});
