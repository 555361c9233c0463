/**
 * How the benchmark measures: autocannon (a separate process) at several
 * connections, a one-connection probe timed in microseconds, a multi-body
 * load generator, the same operations straight to a service over NATS, and a
 * raw NATS echo. Each waits for a quiet machine first.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HeaderNames } from '@clinic/contracts';
import { canConnect, freePort, natsServerBinary, REPO_ROOT, waitFor } from '@clinic/devstack';
import type { HttpRequestSpec, ProbeOptions } from './http-probe';
import type { LatencyStats } from './stats';
import type { Target } from './target';

const run = promisify(execFile);
const HERE = __dirname;
const AUTOCANNON = join(REPO_ROOT, 'node_modules', 'autocannon', 'autocannon.js');
export const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
export const CONCURRENCY = [1, 16, 64];

export interface Request {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Sent besides the token (probe and httpLoad only). */
  headers?: Record<string, string>;
}

export const say = (line: string) => process.stderr.write(`[bench] ${line}\n`);

export function urlOf(target: Target, r: Pick<Request, 'path' | 'query'>): string {
  return `${target.gatewayUrl}${r.path}${r.query ? `?${new URLSearchParams(r.query)}` : ''}`;
}

export function spec(target: Target, r: Request): HttpRequestSpec {
  return {
    url: urlOf(target, r),
    method: r.method,
    headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json', ...r.headers },
    body: r.body === undefined ? undefined : JSON.stringify(r.body),
  };
}

function cpuTimes(): { idle: number; total: number } | null {
  try {
    // The first line: `cpu` and at least user, nice, system, idle (Linux's proc(5)).
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    return { idle: fields[3]! + (fields[4] ?? 0), total: fields.reduce((a, b) => a + b, 0) };
  } catch {
    return null;
  }
}

/**
 * Waits until the machine is quiet (85% idle over two half-second windows, at
 * most BENCH_SETTLE_MAX_S, 30 s), so that a measurement does not pay for the previous run's
 * after-work: events still being published, the database checkpointing.
 */
export async function settle(): Promise<void> {
  let quietWindows = 0;
  const until = Date.now() + Number(process.env.BENCH_SETTLE_MAX_S ?? 30) * 1000;
  let before = cpuTimes();
  while (before && quietWindows < 2 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = cpuTimes()!;
    const idle = (after.idle - before.idle) / Math.max(1, after.total - before.total);
    quietWindows = idle >= 0.85 ? quietWindows + 1 : 0;
    before = after;
  }
}

export async function autocannon(
  target: Target,
  r: Request,
  connections: number,
  options: { settled?: boolean } = {},
): Promise<LatencyStats> {
  if (!options.settled) await settle();
  const args = [
    AUTOCANNON,
    '-j',
    '-c',
    String(connections),
    '-d',
    String(DURATION_S),
    '-m',
    r.method,
    '-H',
    `authorization=Bearer ${target.token}`,
    '-H',
    'content-type=application/json',
  ];
  if (r.body !== undefined) args.push('-b', JSON.stringify(r.body));
  args.push(urlOf(target, r));
  const { stdout } = await run(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 });
  const result = JSON.parse(stdout);
  return {
    count: result.requests.total,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

/** One connection, microsecond timing; see http-probe.ts for `before`, `urls` and `tokens`. */
export async function probe(
  target: Target,
  r: Request,
  extra: { durationMs?: number; maxRequests?: number; urls?: string[]; tokens?: string[]; before?: Request[] } = {},
): Promise<LatencyStats> {
  await settle();
  const options: ProbeOptions = {
    ...spec(target, r),
    durationMs: 5_000,
    ...extra,
    before: extra.before?.map((write) => spec(target, write)),
  };
  // In a file: a year of `before` writes is more than one command-line argument may hold.
  return runWithOptionsFile('http-probe.js', options);
}

/** `concurrency` connections sending `r` with each of `bodies` (and `urls`, when given) in turn. */
export async function httpLoad(
  target: Target,
  r: Request,
  bodies: unknown[],
  concurrency: number,
  durationMs = DURATION_S * 1000,
  urls?: string[],
): Promise<LatencyStats> {
  await settle();
  const options = { ...spec(target, r), bodies: bodies.map((b) => JSON.stringify(b)), urls, concurrency, durationMs };
  return runWithOptionsFile('http-load.js', options);
}

/** Runs one of the bench's measuring scripts with its options in a file, and reads the figures it prints. */
async function runWithOptionsFile(script: string, options: unknown): Promise<LatencyStats> {
  const dir = mkdtempSync(join(tmpdir(), 'clinic-bench-'));
  const file = join(dir, 'options.json');
  writeFileSync(file, JSON.stringify(options));
  try {
    const { stdout } = await run(process.execPath, [join(HERE, script), file], { maxBuffer: 16 * 1024 * 1024 });
    return JSON.parse(stdout) as LatencyStats;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function natsClient(options: Record<string, unknown>): Promise<LatencyStats> {
  const { stdout } = await run(process.execPath, [join(HERE, 'nats-load.js'), 'client', JSON.stringify(options)], {
    maxBuffer: 8 * 1024 * 1024,
  });
  return JSON.parse(stdout) as LatencyStats;
}

/** The same operation sent to the service's subject by a separate process, as the gateway's NATS user with the bench's token. */
export async function direct(
  target: Target,
  subject: string,
  envelope: Record<string, unknown>,
  concurrency: number,
): Promise<LatencyStats> {
  await settle();
  return natsClient({
    url: target.nats!.url,
    user: 'gateway',
    password: target.nats!.passwords.gateway,
    subject,
    payload: JSON.stringify(envelope),
    headers: { [HeaderNames.authorization]: `Bearer ${target.token}` },
    concurrency,
    durationMs: 5_000,
    envelope: true,
  });
}

/**
 * A raw request-reply echo between two Node processes, on a bare nats-server of
 * its own: what a NATS round trip costs on this machine, the yardstick of the
 * reads that go through the gateway and a service.
 */
export class EchoBaseline {
  private constructor(
    private readonly url: string,
    private readonly stopAll: () => void,
  ) {}

  static async start(): Promise<EchoBaseline> {
    const port = await freePort();
    const server = spawn(natsServerBinary(), ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
    const url = `nats://127.0.0.1:${port}`;
    try {
      await waitFor('the echo nats-server', () => canConnect(port), 10_000, 50);
      const responder = spawn(process.execPath, [join(HERE, 'nats-load.js'), 'echo-server', url], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve) => responder.stdout?.once('data', () => resolve()));
      return new EchoBaseline(url, () => {
        responder.kill('SIGTERM');
        server.kill('SIGTERM');
      });
    } catch (err) {
      server.kill('SIGTERM');
      throw err;
    }
  }

  /** `concurrency` requests in flight for 5 s, once the machine is quiet. */
  async measure(concurrency: number): Promise<LatencyStats> {
    await settle();
    return natsClient({
      url: this.url,
      subject: 'bench.echo',
      payload: '{"query":{"store_id":"1"}}',
      concurrency,
      durationMs: 5_000,
    });
  }

  stop(): void {
    this.stopAll();
  }
}

/** The echo at each of CONCURRENCY. */
export async function echoBaseline(): Promise<Record<number, LatencyStats>> {
  const echo = await EchoBaseline.start();
  try {
    const results: Record<number, LatencyStats> = {};
    for (const c of CONCURRENCY) results[c] = await echo.measure(c);
    return results;
  } finally {
    echo.stop();
  }
}

/**
 * The scale part's one-connection probe. At least 20 reads: the first read after a step's bulk load met cold
 * pages (5.6 s at the million, 2026-11-26).
 */
export const SCALE_PROBE = { durationMs: 4_000, maxRequests: 300, minRequests: 20 };
