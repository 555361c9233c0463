// One connection, one request at a time, timed with performance.now(): the
// single-connection latency autocannon's whole-millisecond histogram cannot resolve.
// node:http with a keep-alive agent rather than fetch, whose own per-request cost
// (about half a millisecond here) would be counted as the gateway's.
//   node http-probe.js <file of json options>   prints LatencyStats as JSON
// With `before`, each timed request follows an untimed one (a write, so that no
// cache can answer the read; several are sent in turn); with `urls`, requests go
// to each in turn.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { summarize, type LatencyStats } from './stats';

export interface HttpRequestSpec {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

export interface ProbeOptions extends HttpRequestSpec {
  durationMs: number;
  /** At most this many timed requests. */
  maxRequests?: number;
  /**
   * At least this many timed requests, even past durationMs (up to
   * MIN_REQUESTS_CAP_MS): a slow first request alone is not a p50.
   */
  minRequests?: number;
  before?: HttpRequestSpec[];
  urls?: string[];
  /** Bearer tokens sent in turn instead of the one in `headers`. */
  tokens?: string[];
}

/** How long minRequests may stretch a probe. */
const MIN_REQUESTS_CAP_MS = 60_000;

export function send(spec: HttpRequestSpec, httpAgent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers =
      spec.body === undefined
        ? spec.headers
        : { ...spec.headers, 'content-length': String(Buffer.byteLength(spec.body)) };
    const req = request(spec.url, { method: spec.method, headers, agent: httpAgent }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(spec.body);
  });
}

/** Times requests one at a time for `durationMs` (within minRequests and maxRequests); their latency. */
export async function probe(options: ProbeOptions): Promise<LatencyStats> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const samples: number[] = [];
  let errors = 0;
  const started = performance.now();
  const goOn = (i: number, elapsed: number) =>
    i < (options.maxRequests ?? Infinity) &&
    (elapsed < options.durationMs || (i < (options.minRequests ?? 0) && elapsed < MIN_REQUESTS_CAP_MS));
  try {
    for (let i = 0; goOn(i, performance.now() - started); i++) {
      const before = options.before?.[i % options.before.length];
      if (before && (await send(before, agent)) >= 400) errors++;
      const url = options.urls ? options.urls[i % options.urls.length]! : options.url;
      const token = options.tokens?.[i % options.tokens.length];
      const headers = token ? { ...options.headers, authorization: `Bearer ${token}` } : options.headers;
      const timed = { ...options, url, headers };
      const t0 = performance.now();
      const status = await send(timed, agent);
      if (status >= 400) errors++;
      else samples.push(performance.now() - t0);
    }
  } finally {
    agent.destroy();
  }
  return summarize(samples, errors, performance.now() - started);
}

if (require.main === module) {
  // The bench always passes the options' file as the one argument.
  probe(JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as ProbeOptions).then(
    (stats) => process.stdout.write(`${JSON.stringify(stats)}\n`),
    (err: unknown) => {
      process.stderr.write(`${(err as Error).stack}\n`);
      process.exit(1);
    },
  );
}
