/**
 * The client's address behind a load balancer: X-Forwarded-For is believed from the proxies TRUSTED_PROXIES names and
 * from no other peer. This test's requests come from loopback: to the stack's gateway, which trusts no proxy (the
 * default), loopback is the client whatever the header says; to a second gateway, which trusts loopback as compose's
 * gateways trust the load balancer, the header names the client. Both show it in the per-address rate limit (requests
 * without a token) and in each request's log line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ManagedProcess } from '@clinic/devstack';
import { eventually, fileStack, startSecondGateway } from './harness';

const PER_ADDRESS = 2;
const t = fileStack(undefined, {
  env: { RATE_LIMIT_MAX: '100', RATE_LIMIT_IP_MAX: String(PER_ADDRESS), RATE_LIMIT_WINDOW_MS: '600000' },
});
let trusting: { url: string; process: ManagedProcess };
beforeAll(async () => {
  trusting = await startSecondGateway(t, { TRUSTED_PROXIES: '127.0.0.1/32, ::1' });
}, 60_000);
afterAll(async () => {
  await trusting?.process.stop();
});

/** A request without a token (the per-address limit), the client claiming to be `forwardedFor`. */
const claiming = async (forwardedFor: string, baseUrl?: string) =>
  (await t.get('/docs/json', { token: null, headers: { 'x-forwarded-for': forwardedFor }, baseUrl })).status;

/** The client address of each request line of `log` for the documents, once there are `count` of them. */
const loggedClients = (log: string, count: number) =>
  eventually(async () => {
    const lines = readFileSync(join(t.stack.logDir, log), 'utf8')
      .split('\n')
      .filter((line) => line.includes('"request completed"'))
      .map((line) => JSON.parse(line))
      .filter((line) => line.url === '/docs/json');
    return lines.length >= count ? lines.map((line) => [line.client_ip, line.status]) : undefined;
  });

it('ignores X-Forwarded-For from a peer it does not trust: every address a client claims is counted and logged as the peer', async () => {
  expect(await claiming('203.0.113.1')).toBe(200);
  expect(await claiming('203.0.113.2')).toBe(200);
  expect(await claiming('203.0.113.3')).toBe(429);
  expect(await loggedClients('gateway.log', 3)).toEqual([
    ['127.0.0.1', 200],
    ['127.0.0.1', 200],
    ['127.0.0.1', 429],
  ]);
});

it("takes the client from a trusted proxy's X-Forwarded-For: each address counted and logged as itself", async () => {
  const url = trusting.url;
  expect(await claiming('198.51.100.7', url)).toBe(200);
  expect(await claiming('198.51.100.7', url)).toBe(200);
  expect(await claiming('198.51.100.7', url)).toBe(429);
  expect(await claiming('198.51.100.8', url)).toBe(200);
  // What a client wrote itself before the proxy's entry is not believed: the client is the proxy's last address.
  expect(await claiming('198.51.100.8, 198.51.100.9', url)).toBe(200);
  expect(await loggedClients('gateway-2.log', 5)).toEqual([
    ['198.51.100.7', 200],
    ['198.51.100.7', 200],
    ['198.51.100.7', 429],
    ['198.51.100.8', 200],
    ['198.51.100.9', 200],
  ]);
});
