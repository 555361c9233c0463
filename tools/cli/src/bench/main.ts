// npm run bench: load through the gateway with autocannon (a separate process),
// the same operations sent to the services' subjects directly, and a raw NATS
// echo, so that the gateway's and the NATS hop's shares of the latency show.
// Starts its own stack on the embedded default, or uses GATEWAY_URL (a stack
// started by npm start; with NATS_URL and MONGO_URL also the baselines and checks).
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { performance } from 'node:perf_hooks';
import { MongoClient } from 'mongodb';
import { headers as natsHeaders } from 'nats';
import { BillingSubjects, CatalogueSubjects, HeaderNames, SessionsSubjects, type NatsUser } from '@clinic/contracts';
import {
  canConnect,
  freePort,
  natsPasswords,
  natsServerBinary,
  parseSeedFile,
  REPO_ROOT,
  seedReferenceData,
  signingKeyFromEnv,
  signToken,
  Stack,
  waitFor,
} from '@clinic/devstack';
import { connectNats, createLogger } from '@clinic/service-kit';
import { loadDemoDataOnFirstStart } from '../demo';
import type { LatencyStats } from './stats';

const run = promisify(execFile);
const say = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONCURRENCY = [1, 16, 64];
const AUTOCANNON = join(REPO_ROOT, 'node_modules', 'autocannon', 'autocannon.js');
const HERE = __dirname;

interface Target {
  gatewayUrl: string;
  token: string;
  /** For the direct-to-service baseline and seeding; absent with GATEWAY_URL unless NATS_URL is given. */
  nats?: { url: string; passwords: Record<NatsUser, string> };
  /** For the bill-number check; the API is used without it. */
  mongoUrl?: string;
  /** The stack this run started (absent with GATEWAY_URL, which is expected to hold npm start's demo data). */
  stack?: Stack;
  stop(): Promise<void>;
}

interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  subject: string;
  /** Body or request envelope for concurrency `c` (writes use one bill date per run). */
  body?: (c: number, via: 'http' | 'nats') => Record<string, unknown>;
  query?: Record<string, string>;
}

async function startTarget(): Promise<Target> {
  if (process.env.GATEWAY_URL) {
    const signing = signingKeyFromEnv();
    return {
      gatewayUrl: process.env.GATEWAY_URL.replace(/\/$/, ''),
      token: signToken({ sub: 1, role: 'admin', expiresInSeconds: 4 * 3600 }, signing),
      nats: process.env.NATS_URL ? { url: process.env.NATS_URL, passwords: natsPasswords() } : undefined,
      mongoUrl: process.env.MONGO_URL,
      stop: async () => undefined,
    };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'clinic-bench-'));
  const secret = 'bench-run-secret';
  const stack = await Stack.start({
    dataDir,
    infra: 'local',
    serviceOutput: 'file',
    env: { JWT_SECRET: secret, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' },
  });
  return {
    gatewayUrl: stack.gatewayUrl,
    token: signToken({ sub: 1, role: 'admin', expiresInSeconds: 4 * 3600 }, { algorithm: 'HS256', key: secret }),
    nats: { url: stack.infra.natsUrl, passwords: stack.infra.natsPasswords },
    mongoUrl: stack.infra.mongoUrl,
    stack,
    async stop() {
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function api(target: Target, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${target.gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

const benchDoctor = (id: number) => ({
  id, name: `Dr. Bench ${id}`, reg_no: `B-${id}`, specialization: 'General', channeling_fee: 1000, status: 'Active', store_id: 1,
  schedule: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'].map((day) => ({
    day, session_no: 1, start_time: '08:00', end_time: '12:00', max_patients: 20,
  })),
});

/**
 * Demo data (npm start's, already there with GATEWAY_URL), six more doctors
 * so that branch 1 has a month of sessions, and 10,000 bills in branch 2
 * (created through the API).
 */
async function prepare(target: Target): Promise<Record<string, unknown>> {
  if (target.stack) await loadDemoDataOnFirstStart(target.stack, target.token);
  const month = nextMonth(2);
  const setup: Record<string, unknown> = { month };
  if (target.nats) {
    const nc = await connectNats(
      { url: target.nats.url, user: 'ops', password: target.nats.passwords.ops },
      { name: 'bench', log: createLogger('bench', 'warn'), waitForServer: false },
    );
    await seedReferenceData(nc, parseSeedFile({ doctors: [11, 12, 13, 14, 15, 16].map(benchDoctor) }));
    await nc.close();
  }
  const created = await api(target, 'POST', '/auto_create_sessions', { month, store_id: 1 });
  const sessions = await api(target, 'GET', '/all_sessions?store_id=1');
  setup.sessions_listed = sessions.sessions.length;
  setup.sessions_created = created.created;

  const store1 = (await api(target, 'GET', '/hospital_charges?store_id=1&status=Active')).charges.slice(0, 3);
  const store2 = (await api(target, 'GET', '/hospital_charges?store_id=2&status=Active')).charges;
  setup.items = store1.map((c: any) => ({ charge_id: c.id, charge_name: c.charge_name, unit_price: c.amount, qty: 1 }));

  const summaryBills = Number(process.env.BENCH_SUMMARY_BILLS ?? 10_000);
  const started = Date.now();
  let next = 0;
  const makeBill = (i: number) => ({
    patient_name: `Patient ${i}`, patient_contact: '0770000000', bill_date: dayOf2029(i), payment_method: ['Cash', 'Card', 'Online'][i % 3],
    payment_status: i % 5 === 0 ? 'Pending' : 'Paid', store_id: 2, discount_type: 'pct', discount_value: i % 10,
    items: [{ charge_id: store2[0].id, charge_name: store2[0].charge_name, unit_price: store2[0].amount, qty: 1 + (i % 3) }],
  });
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < summaryBills) await api(target, 'POST', '/lab_bills', makeBill(next++));
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  setup.summary_bills = summaryBills;
  setup.summary_bills_seconds = Math.round(seconds * 10) / 10;
  setup.summary_bills_per_second = Math.round(summaryBills / seconds);
  say(`created ${summaryBills} bills for the summary in ${seconds.toFixed(1)} s (${setup.summary_bills_per_second}/s at 32 in flight)`);
  setup.summary_cold_ms = await coldSummary(target);
  if (setup.summary_cold_ms !== null) say(`first summary read after the writes (computed, not cached): ${setup.summary_cold_ms} ms`);
  return setup;
}

/**
 * The first summary read after writes to its branch recomputes it from the
 * bills; the scenario then measures the cached case. Timed straight over NATS
 * with a long timeout, since on FerretDB it can outlast the gateway's.
 */
async function coldSummary(target: Target): Promise<number | null> {
  if (!target.nats) return null;
  await settle();
  const nc = await connectNats(
    { url: target.nats.url, user: 'gateway', password: target.nats.passwords.gateway },
    { name: 'bench-cold-summary', log: createLogger('bench', 'warn'), waitForServer: false },
  );
  try {
    const h = natsHeaders();
    h.set(HeaderNames.callerSub, '1');
    h.set(HeaderNames.callerRole, 'admin');
    const started = performance.now();
    const msg = await nc.request(BillingSubjects.summary, JSON.stringify({ query: { store_id: '2' } }), { timeout: 120_000, headers: h });
    const ms = Math.round(performance.now() - started);
    const reply = msg.json<{ status: number }>();
    if (reply.status !== 200) throw new Error(`cold summary answered ${reply.status}`);
    return ms;
  } finally {
    await nc.close();
  }
}

function nextMonth(ahead: number): string {
  const d = new Date();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + ahead);
  return d.toISOString().slice(0, 7);
}

function dayOf2029(i: number): string {
  return new Date(Date.UTC(2029, 0, 1) + (i % 365) * 86_400_000).toISOString().slice(0, 10);
}

/** The bill date each write run uses, so that every run numbers its own date from 0001. */
function writeDate(c: number, via: 'http' | 'nats'): string {
  return `2031-${via === 'http' ? '01' : '02'}-${String(CONCURRENCY.indexOf(c) + 1).padStart(2, '0')}`;
}

function cpuTimes(): { idle: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { idle: fields[3] + (fields[4] ?? 0), total: fields.reduce((a, b) => a + b, 0) };
  } catch {
    return null;
  }
}

/**
 * Waits until the machine is quiet (85% idle over two half-second windows, at
 * most 30 s), so that a measurement does not pay for the previous run's
 * after-work: events still being published, the database checkpointing.
 */
async function settle(): Promise<void> {
  let quietWindows = 0;
  const until = Date.now() + 30_000;
  let before = cpuTimes();
  while (before && quietWindows < 2 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = cpuTimes()!;
    const idle = (after.idle - before.idle) / Math.max(1, after.total - before.total);
    quietWindows = idle >= 0.85 ? quietWindows + 1 : 0;
    before = after;
  }
}

async function autocannon(target: Target, scenario: Scenario, connections: number): Promise<LatencyStats> {
  await settle();
  const args = [AUTOCANNON, '-j', '-c', String(connections), '-d', String(DURATION_S), '-m', scenario.method,
    '-H', `authorization=Bearer ${target.token}`, '-H', 'content-type=application/json'];
  if (scenario.body) args.push('-b', JSON.stringify(scenario.body(connections, 'http')));
  const query = scenario.query ? `?${new URLSearchParams(scenario.query)}` : '';
  args.push(`${target.gatewayUrl}${scenario.path}${query}`);
  const { stdout } = await run(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 });
  const r = JSON.parse(stdout);
  return {
    count: r.requests.total,
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p90: r.latency.p90,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts + r.non2xx,
  };
}

async function probe(target: Target, scenario: Scenario): Promise<LatencyStats> {
  await settle();
  const query = scenario.query ? `?${new URLSearchParams(scenario.query)}` : '';
  const options = {
    url: `${target.gatewayUrl}${scenario.path}${query}`,
    method: scenario.method,
    headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
    // A date of its own: the probe's bills are numbered apart from autocannon's.
    body: scenario.body ? JSON.stringify({ ...scenario.body(1, 'http'), bill_date: '2031-03-01' }) : undefined,
    durationMs: 5_000,
  };
  const { stdout } = await run(process.execPath, [join(HERE, 'http-probe.js'), JSON.stringify(options)]);
  return JSON.parse(stdout) as LatencyStats;
}

async function natsClient(options: Record<string, unknown>): Promise<LatencyStats> {
  const { stdout } = await run(process.execPath, [join(HERE, 'nats-load.js'), 'client', JSON.stringify(options)], { maxBuffer: 8 * 1024 * 1024 });
  return JSON.parse(stdout) as LatencyStats;
}

async function direct(target: Target, scenario: Scenario, concurrency: number): Promise<LatencyStats> {
  await settle();
  const envelope = scenario.body ? { body: scenario.body(concurrency, 'nats') } : { query: scenario.query };
  return natsClient({
    url: target.nats!.url,
    user: 'gateway',
    password: target.nats!.passwords.gateway,
    subject: scenario.subject,
    payload: JSON.stringify(envelope),
    headers: { [HeaderNames.callerSub]: '1', [HeaderNames.callerRole]: 'admin' },
    concurrency,
    durationMs: 5_000,
    envelope: true,
  });
}

/** A raw request-reply echo between two Node processes, on a bare nats-server of its own. */
async function echoBaseline(): Promise<Record<number, LatencyStats>> {
  const port = await freePort();
  const server = spawn(natsServerBinary(), ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const url = `nats://127.0.0.1:${port}`;
  try {
    await waitFor('the echo nats-server', () => canConnect(port), 10_000, 50);
    const responder = spawn(process.execPath, [join(HERE, 'nats-load.js'), 'echo-server', url], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => responder.stdout?.once('data', () => resolve()));
    const results: Record<number, LatencyStats> = {};
    for (const c of CONCURRENCY) {
      await settle();
      results[c] = await natsClient({ url, subject: 'bench.echo', payload: '{"query":{"store_id":"1"}}', concurrency: c, durationMs: 5_000 });
    }
    responder.kill('SIGTERM');
    return results;
  } finally {
    server.kill('SIGTERM');
  }
}

interface NumberCheck {
  dates: number;
  bills: number;
  duplicates: number;
  gaps: number;
  ok: boolean;
}

/** Every bill number unique, and the numbers of each date 1..n without a gap. */
async function checkBillNumbers(target: Target): Promise<NumberCheck> {
  let bills: Array<{ bill_date: string; bill_number: string }> = [];
  if (target.mongoUrl) {
    const client = await MongoClient.connect(target.mongoUrl);
    bills = (await client.db('clinic_billing').collection('bills').find({}, { projection: { bill_date: 1, bill_number: 1 } }).toArray()) as never;
    await client.close();
  } else {
    for (const store of [1, 2]) {
      for (let page = 1; ; page++) {
        const res = await api(target, 'GET', `/lab_bills?store_id=${store}&per_page=100&page=${page}`);
        bills.push(...res.bills);
        if (page >= res.pages) break;
      }
    }
  }
  const numbers = new Set(bills.map((b) => b.bill_number));
  const byDate = new Map<string, number[]>();
  for (const b of bills) byDate.set(b.bill_date, [...(byDate.get(b.bill_date) ?? []), Number(b.bill_number.split('-')[2])]);
  let gaps = 0;
  for (const seqs of byDate.values()) {
    const sorted = seqs.sort((a, b) => a - b);
    gaps += sorted[sorted.length - 1] - sorted.length;
  }
  const duplicates = bills.length - numbers.size;
  return { dates: byDate.size, bills: bills.length, duplicates, gaps, ok: duplicates === 0 && gaps === 0 };
}

function fmt(s: LatencyStats | undefined): string {
  if (!s) return '-'.padEnd(44);
  const ms = (n: number | null) => (n === null || Number.isNaN(n) ? '-' : n.toFixed(2)).padStart(8);
  return `${String(s.rps).padStart(7)} ${ms(s.p50)} ${ms(s.p90)} ${ms(s.p99)} ${String(s.errors).padStart(6)}`;
}

async function main(): Promise<void> {
  say(`machine: ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB; ${DURATION_S} s per autocannon run`);
  const target = await startTarget();
  const results: Record<string, any> = {
    date: new Date().toISOString(),
    machine: { cores: cpus().length, cpu: cpus()[0]?.model, memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version },
    command: `npm run bench${process.argv.slice(2).length ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    settings: { duration_s: DURATION_S, concurrency: CONCURRENCY, log_level: process.env.BENCH_LOG_LEVEL ?? 'info', target: process.env.GATEWAY_URL ?? 'embedded default' },
  };
  try {
    results.setup = await prepare(target);
    const items = results.setup.items as unknown[];
    const bill = (c: number, via: 'http' | 'nats') => ({
      patient_name: 'Bench Patient', patient_contact: '0771234567', bill_date: writeDate(c, via), payment_method: 'Cash',
      store_id: 1, items, received_amount: 10000, balance_amount: 0,
    });
    const scenarios: Scenario[] = [
      { name: 'GET /hospital_charges', method: 'GET', path: '/hospital_charges', query: { store_id: '1' }, subject: CatalogueSubjects.list },
      { name: 'GET /all_sessions (a month)', method: 'GET', path: '/all_sessions', query: { store_id: '1' }, subject: SessionsSubjects.list },
      { name: 'POST /lab_bills (3 items)', method: 'POST', path: '/lab_bills', body: bill, subject: BillingSubjects.create },
      { name: `GET /lab_bills/summary (${Number(results.setup.summary_bills).toLocaleString('en')} bills)`, method: 'GET', path: '/lab_bills/summary', query: { store_id: '2' }, subject: BillingSubjects.summary },
    ];
    results.scenarios = [];
    for (const scenario of scenarios) {
      const entry: Record<string, any> = { name: scenario.name, http: {}, direct: {} };
      for (const c of CONCURRENCY) {
        say(`${scenario.name}: ${c} connection(s) through the gateway`);
        entry.http[c] = await autocannon(target, scenario, c);
      }
      entry.probe = await probe(target, scenario);
      if (target.nats) {
        for (const c of CONCURRENCY) {
          say(`${scenario.name}: ${c} in flight straight to ${scenario.subject}`);
          entry.direct[c] = await direct(target, scenario, c);
        }
      }
      results.scenarios.push(entry);
    }
    say('raw NATS echo between two Node processes');
    results.echo = await echoBaseline();
    results.bill_numbers = await checkBillNumbers(target);
  } finally {
    await target.stop();
    mkdirSync(join(REPO_ROOT, 'bench-results'), { recursive: true });
    writeFileSync(join(REPO_ROOT, 'bench-results', 'raw.json'), `${JSON.stringify(results, null, 2)}\n`);
  }
  report(results);
}

function report(results: Record<string, any>): void {
  const lines: string[] = [];
  const header = `${'scenario'.padEnd(38)} ${'conns'.padStart(5)} | ${'req/s'.padStart(7)} ${'p50 ms'.padStart(8)} ${'p90 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(6)} | direct to the service over NATS`;
  lines.push(header, '-'.repeat(header.length + 20));
  for (const s of results.scenarios) {
    for (const c of CONCURRENCY) lines.push(`${s.name.padEnd(38)} ${String(c).padStart(5)} | ${fmt(s.http[c])} | ${fmt(s.direct[c])}`);
  }
  for (const c of CONCURRENCY) lines.push(`${'raw NATS echo (two Node processes)'.padEnd(38)} ${String(c).padStart(5)} | ${'-'.padEnd(44)} | ${fmt(results.echo[c])}`);

  lines.push('', 'Where the time goes at one connection (p50, microsecond timing):');
  results.shares = [];
  for (const s of results.scenarios) {
    const http = s.probe?.p50;
    const direct = s.direct[1]?.p50;
    const echo = results.echo[1].p50;
    if (typeof http !== 'number' || typeof direct !== 'number') {
      lines.push(`  ${s.name.padEnd(38)} not measured: every request failed at one connection`);
      continue;
    }
    const share = {
      scenario: s.name,
      http_p50_ms: http,
      direct_p50_ms: direct,
      echo_p50_ms: echo,
      gateway_added_ms: Math.round((http - direct) * 1000) / 1000,
      gateway_share: Math.round(((http - direct) / http) * 100) / 100,
      nats_hop_share: Math.round((echo / http) * 100) / 100,
      service_share: Math.round(((direct - echo) / http) * 100) / 100,
    };
    results.shares.push(share);
    lines.push(
      `  ${s.name.padEnd(38)} http ${http.toFixed(2)} ms = gateway ${share.gateway_added_ms.toFixed(2)} ms (${share.gateway_share}) + ` +
        `NATS hop ${echo.toFixed(2)} ms (${share.nats_hop_share}) + service ${(direct - echo).toFixed(2)} ms (${share.service_share})`,
    );
  }
  const check = results.bill_numbers;
  if (typeof results.setup?.summary_cold_ms === 'number') {
    lines.push('', `Summary over ${results.setup.summary_bills} bills computed from the database (first read after writes): ${results.setup.summary_cold_ms} ms`);
  }
  lines.push('', `Bill numbers: ${check.bills} bills over ${check.dates} dates, ${check.duplicates} duplicate(s), ${check.gaps} gap(s): ${check.ok ? 'OK' : 'FAILED'}`);

  const errors = results.scenarios.flatMap((s: any) => CONCURRENCY.map((c) => s.http[c].errors)).reduce((a: number, b: number) => a + b, 0);
  const write = results.scenarios.find((s: any) => s.name.startsWith('POST'));
  const reads = results.scenarios.filter((s: any) => s.name.startsWith('GET'));
  results.targets = {
    zero_errors: errors === 0,
    gateway_adds_under_1ms_p50: results.shares.every((s: any) => s.gateway_added_ms < 1),
    bills_per_second_over_500: Math.max(...CONCURRENCY.map((c) => write.http[c].rps)) > 500,
    reads_over_3000_rps: Object.fromEntries(reads.map((s: any) => [s.name, Math.max(...CONCURRENCY.map((c) => s.http[c].rps)) > 3000])),
  };
  lines.push('', `Targets: ${JSON.stringify(results.targets)}`);

  const text = lines.join('\n');
  process.stdout.write(`${text}\n`);
  if (reportIndex > 0) return;
  const dir = join(REPO_ROOT, 'bench-results');
  mkdirSync(dir, { recursive: true });
  const stamp = results.date.replace(/[:.]/g, '-');
  writeFileSync(join(dir, `bench-${stamp}.json`), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(dir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(dir, 'latest.txt'), `${text}\n`);
  say(`results written to bench-results/bench-${stamp}.json (and latest.json, latest.txt)`);
  if (!check.ok) process.exitCode = 1;
}

// `--report <file.json>` prints the report of a saved run again.
const reportIndex = process.argv.indexOf('--report');
if (reportIndex > 0) {
  report(JSON.parse(readFileSync(process.argv[reportIndex + 1], 'utf8')));
} else {
  main().catch((err: unknown) => {
    say(`failed: ${(err as Error).stack}`);
    process.exit(1);
  });
}
