import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { probe, type ProbeOptions } from '../src/bench/http-probe';

/** Each answer comes this late: longer than the probes' durationMs, so time alone stops a probe after one request. */
const ANSWER_DELAY_MS = 100;

let server: Server;
let answered = 0;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    setTimeout(() => {
      answered++;
      res.end('{}');
    }, ANSWER_DELAY_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  answered = 0;
});

const options = (extra: Partial<ProbeOptions>): ProbeOptions => ({
  url,
  method: 'GET',
  headers: {},
  durationMs: ANSWER_DELAY_MS / 2,
  ...extra,
});

describe('probe', () => {
  it('stops once durationMs has passed, after one slow request', async () => {
    const stats = await probe(options({}));
    expect(stats.count).toBe(1);
    expect(answered).toBe(1);
  });

  it('times minRequests requests though durationMs has passed after the first', async () => {
    const stats = await probe(options({ minRequests: 5 }));
    expect(stats.count).toBe(5);
    expect(stats.errors).toBe(0);
    expect(answered).toBe(5);
  });

  it('times no more than maxRequests, whatever minRequests asks', async () => {
    const stats = await probe(options({ minRequests: 5, maxRequests: 3 }));
    expect(stats.count).toBe(3);
    expect(answered).toBe(3);
  });
});
