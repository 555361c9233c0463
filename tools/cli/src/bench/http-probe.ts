// One connection, one request at a time, timed with performance.now(): the
// single-connection latency autocannon's whole-millisecond histogram cannot resolve.
// node:http with a keep-alive agent rather than fetch, whose own per-request cost
// (about half a millisecond here) would be counted as the gateway's.
//   node http-probe.js <json options>   prints LatencyStats as JSON
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { summarize } from './stats';

interface ProbeOptions {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  durationMs: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function send(options: ProbeOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = options.body === undefined ? options.headers : { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) };
    const req = request(options.url, { method: options.method, headers, agent }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

async function main(options: ProbeOptions): Promise<void> {
  const samples: number[] = [];
  let errors = 0;
  const started = performance.now();
  while (performance.now() - started < options.durationMs) {
    const t0 = performance.now();
    const status = await send(options);
    if (status >= 400) errors++;
    else samples.push(performance.now() - t0);
  }
  agent.destroy();
  process.stdout.write(`${JSON.stringify(summarize(samples, errors, performance.now() - started))}\n`);
}

main(JSON.parse(process.argv[2]) as ProbeOptions).catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
