// Requests from many connections at once, each body taken in turn from a list
// (autocannon sends one body): the benchmark's writes spread over dates.
//   node http-load.js <json options>   prints LatencyStats as JSON
import { Agent } from 'node:http';
import { performance } from 'node:perf_hooks';
import { send, type HttpRequestSpec } from './http-probe';
import { summarize } from './stats';

interface LoadOptions extends HttpRequestSpec {
  bodies: string[];
  concurrency: number;
  durationMs: number;
}

async function main(options: LoadOptions): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const samples: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  const until = started + options.durationMs;
  const worker = async () => {
    while (performance.now() < until) {
      const body = options.bodies[next++ % options.bodies.length];
      const t0 = performance.now();
      try {
        if ((await send({ ...options, body }, agent)) >= 400) errors++;
        else samples.push(performance.now() - t0);
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const elapsed = performance.now() - started;
  agent.destroy();
  process.stdout.write(`${JSON.stringify(summarize(samples, errors, elapsed))}\n`);
}

// The bench always passes the options as the one argument.
main(JSON.parse(process.argv[2]!) as LoadOptions).catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
