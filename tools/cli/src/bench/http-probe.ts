// One connection, one request at a time, timed with performance.now(): the
// single-connection latency autocannon's whole-millisecond histogram cannot resolve.
//   node http-probe.js <json options>   prints LatencyStats as JSON
import { performance } from 'node:perf_hooks';
import { summarize } from './stats';

interface ProbeOptions {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  durationMs: number;
}

async function main(options: ProbeOptions): Promise<void> {
  const samples: number[] = [];
  let errors = 0;
  const started = performance.now();
  while (performance.now() - started < options.durationMs) {
    const t0 = performance.now();
    const response = await fetch(options.url, { method: options.method, headers: options.headers, body: options.body });
    await response.arrayBuffer();
    if (response.status >= 400) errors++;
    else samples.push(performance.now() - t0);
  }
  process.stdout.write(`${JSON.stringify(summarize(samples, errors, performance.now() - started))}\n`);
}

main(JSON.parse(process.argv[2]) as ProbeOptions).catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
