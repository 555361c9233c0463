// Requests from many connections at once, each body (and url, when given)
// taken in turn from a list (autocannon sends one body to one url): the
// benchmark's writes spread over dates, its payments over bills.
//   node http-load.js <file of json options>   prints LatencyStats as JSON
import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { performance } from 'node:perf_hooks';
import { send, type HttpRequestSpec } from './http-probe';
import { summarize } from './stats';

interface LoadOptions extends HttpRequestSpec {
  bodies: string[];
  urls?: string[];
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
      const n = next++;
      const body = options.bodies[n % options.bodies.length];
      const url = options.urls ? options.urls[n % options.urls.length]! : options.url;
      const t0 = performance.now();
      try {
        if ((await send({ ...options, url, body }, agent)) >= 400) errors++;
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

// The bench always passes the options' file as the one argument (a list of urls is more than an argument may hold).
main(JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as LoadOptions).catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
