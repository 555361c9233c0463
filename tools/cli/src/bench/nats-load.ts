// A NATS load process for the benchmark, run as a child process.
//   node nats-load.js echo-server <url>                  answers bench.echo until killed
//   node nats-load.js client <json options>              prints LatencyStats as JSON
import { performance } from 'node:perf_hooks';
import { connect, headers as natsHeaders } from 'nats';
import { inboxPrefixOf } from '@clinic/contracts';
import { summarize } from './stats';

interface ClientOptions {
  url: string;
  user?: string;
  password?: string;
  subject: string;
  payload: string;
  headers?: Record<string, string>;
  concurrency: number;
  durationMs: number;
  /** A reply counts as an error when its envelope status is 400 or more. */
  envelope?: boolean;
}

async function echoServer(url: string): Promise<void> {
  const nc = await connect({ servers: url, noAsyncTraces: true });
  nc.subscribe('bench.echo', { callback: (_err, msg) => msg.respond(msg.data) });
  process.stdout.write('ready\n');
  process.on('SIGTERM', () => void nc.drain().then(() => process.exit(0)));
}

async function client(options: ClientOptions): Promise<void> {
  const nc = await connect({
    servers: options.url,
    user: options.user,
    pass: options.password,
    inboxPrefix: options.user ? inboxPrefixOf(options.user) : undefined,
    noAsyncTraces: true,
  });
  const h = natsHeaders();
  for (const [key, value] of Object.entries(options.headers ?? {})) h.set(key, value);
  const payload = new TextEncoder().encode(options.payload);
  const samples: number[] = [];
  let errors = 0;
  const started = performance.now();
  const until = started + options.durationMs;
  const worker = async () => {
    while (performance.now() < until) {
      const t0 = performance.now();
      try {
        const msg = await nc.request(options.subject, payload, { timeout: 5000, headers: h });
        if (options.envelope && (JSON.parse(new TextDecoder().decode(msg.data)) as { status: number }).status >= 400)
          errors++;
        else samples.push(performance.now() - t0);
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const elapsed = performance.now() - started;
  await nc.close();
  process.stdout.write(`${JSON.stringify(summarize(samples, errors, elapsed))}\n`);
}

const [mode, arg] = process.argv.slice(2);
// The bench always passes the mode and its argument.
(mode === 'echo-server' ? echoServer(arg!) : client(JSON.parse(arg!) as ClientOptions)).catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
