/**
 * Issue 31: hot reads (a charge, the charge list, a session, a day's sessions,
 * a bill, a page of a date's bills, a date's summary), each repeated so that
 * every replica may answer from memory, through the gateway at 1, 16 and 64
 * connections, next to the raw NATS echo measured in the same run (before and
 * after each concurrency's reads, averaged), as a ratio; and at one
 * connection where the time goes (gateway, NATS hop, service) and the CPU each
 * process spends per request. Run alone with BENCH_PARTS=hot.
 *
 * BENCH_PROFILE_DIR=<folder>: a CPU profile of the gateway and of the
 * answering service during each one-connection run (cpu-profiler.ts).
 */
import { renameSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BillingSubjects, CatalogueSubjects, SessionsSubjects, type ServiceName } from '@clinic/contracts';
import { prepareDemo } from './baseline';
import { autocannon, CONCURRENCY, direct, EchoBaseline, probe, say, type Request } from './measure';
import type { LatencyStats } from './stats';
import { api, type Target } from './target';
import { withCpuPerRequest } from './process-cpu';
import { measurePeers, PEER_CONNECTIONS, peerLines, type PeerFigures } from './peers/compare';

/**
 * Tokens in turn, more than the gateway's reply cache keeps per service (REPLY_CACHE_ENTRIES, 1,000) and fewer than
 * the verified tokens it remembers (10,000): each read misses the reply cache (its key holds the token) and is
 * forwarded, as a first read is, without a signature check the repeated read does not pay either.
 */
const FORWARDED_TOKENS = 2_000;

/** The targets of issue 31: a hot read's rate over the echo's, at one connection and at 64. */
export const HOT_TARGETS: Record<number, number> = { 1: 0.5, 64: 0.18 };

const BILL_DATE = '2095-01-15';
const BILLS = 30;

interface HotRead extends Request {
  name: string;
  service: ServiceName;
  subject: string;
  envelope: Record<string, unknown>;
}

export interface HotReadFigures {
  name: string;
  http: Record<number, LatencyStats>;
  /**
   * One connection: the probe (microsecond timing; a repeated read, which the gateway's reply cache answers),
   * the same read forwarded to the service (FORWARDED: the cache is not looked up) and straight over NATS.
   */
  probe?: LatencyStats;
  forwarded?: LatencyStats;
  direct?: LatencyStats;
  /** CPU ms per request at one connection, of the gateway and of the service that answers. */
  cpu?: { gateway: number; service: number };
}

export interface HotFigures {
  /** The echo at each concurrency, measured before and after its reads. */
  echo: Record<number, LatencyStats[]>;
  reads: HotReadFigures[];
  /** The charge list next to a cached Moleculer's (absent when the bench measures a stack it did not start). */
  peers?: PeerFigures | null;
}

/** The reads, on the demo data, a month of sessions and BILLS bills of one date in branch 1. */
async function hotReads(target: Target): Promise<HotRead[]> {
  const { items } = await prepareDemo(target);
  let billId = 0;
  for (let i = 0; i < BILLS; i++) {
    const created = await api(target, 'POST', '/lab_bills', {
      patient_name: `Hot Patient ${i}`,
      patient_contact: '0771234567',
      bill_date: BILL_DATE,
      payment_method: ['Cash', 'Card', 'Online'][i % 3],
      payment_status: i % 2 ? 'Pending' : 'Paid',
      store_id: 1,
      items,
    });
    billId = created.bill_id;
  }
  const sessions = (await api(target, 'GET', '/all_sessions?store_id=1')).sessions as Array<{
    id: number;
    session_date: string;
  }>;
  const session = sessions[sessions.length - 1];
  const chargeId = (items as Array<{ charge_id: number }>)[0]?.charge_id;
  if (!session || chargeId === undefined) throw new Error('the demo data has no session or charge to read');
  const read = (
    name: string,
    service: ServiceName,
    subject: string,
    path: string,
    envelope: { params?: Record<string, string>; query?: Record<string, string> },
  ): HotRead => ({ name, service, subject, method: 'GET', path, query: envelope.query, envelope });
  return [
    read('GET /hospital_charges/{id}', 'catalogue', CatalogueSubjects.get, `/hospital_charges/${chargeId}`, {
      params: { charge_id: String(chargeId) },
    }),
    read('GET /hospital_charges', 'catalogue', CatalogueSubjects.list, '/hospital_charges', {
      query: { store_id: '1' },
    }),
    read('GET /get_session/{id}', 'sessions', SessionsSubjects.get, `/get_session/${session.id}`, {
      params: { session_id: String(session.id) },
    }),
    read('GET /all_sessions (a day)', 'sessions', SessionsSubjects.list, '/all_sessions', {
      query: { store_id: '1', date: session.session_date },
    }),
    read('GET /lab_bills/{id}', 'billing', BillingSubjects.get, `/lab_bills/${billId}`, {
      params: { bill_id: String(billId) },
    }),
    read(`GET /lab_bills (a date, page 1)`, 'billing', BillingSubjects.list, '/lab_bills', {
      query: { store_id: '1', date: BILL_DATE },
    }),
    read('GET /lab_bills/summary (a date)', 'billing', BillingSubjects.summary, '/lab_bills/summary', {
      query: { store_id: '1', date: BILL_DATE },
    }),
  ];
}

/** Sends SIGWINCH to the processes (cpu-profiler.ts): the first starts a profile, the second writes it. */
function toggleProfiles(pids: Array<number | undefined>): void {
  for (const pid of pids) if (pid) process.kill(pid, 'SIGWINCH');
}

/** Names the profiles the processes wrote after `label` (each writes <pid>-<n>.cpuprofile). */
async function nameProfiles(dir: string, processes: Record<string, number | undefined>, label: string) {
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (const [name, pid] of Object.entries(processes)) {
    for (let n = 1; n < 100; n++) {
      const file = join(dir, `${pid}-${n}.cpuprofile`);
      if (!existsSync(file)) continue;
      renameSync(file, join(dir, `${label.replace(/[^A-Za-z0-9]+/g, '_')}-${name}.cpuprofile`));
    }
  }
}

/** One read at one connection through the gateway, with the CPU its processes spend (and their profiles). */
async function atOneConnection(target: Target, read: HotRead): Promise<Pick<HotReadFigures, 'cpu'> & LatencyStats> {
  const stack = target.stack;
  const gateway = stack?.gateway.pid;
  const service = stack?.replica(read.service).pid;
  const profileDir = process.env.BENCH_PROFILE_DIR;
  if (profileDir) {
    mkdirSync(profileDir, { recursive: true });
    toggleProfiles([gateway, service]);
  }
  const { cpu, ...stats } = await withCpuPerRequest({ gateway, service }, () =>
    autocannon(target, read, 1, { settled: Boolean(profileDir) }),
  );
  if (profileDir) {
    toggleProfiles([gateway, service]);
    await nameProfiles(profileDir, { gateway, [read.service]: service }, read.name);
  }
  return { ...stats, cpu: { gateway: cpu.gateway!, service: cpu.service! } };
}

export async function measureHot(target: Target): Promise<HotFigures> {
  say('hot reads: demo data, a month of sessions and bills of one date');
  const reads = await hotReads(target);
  const figures: HotFigures = { echo: {}, reads: reads.map((r) => ({ name: r.name, http: {} })) };
  // Every read once, so that each is in memory before it is measured.
  for (const read of reads)
    await api(target, 'GET', `${read.path}${read.query ? `?${new URLSearchParams(read.query)}` : ''}`);
  const echo = await EchoBaseline.start();
  try {
    for (const c of CONCURRENCY) {
      say(`hot reads at ${c} connection(s), between two runs of the raw NATS echo`);
      const echoRuns = [await echo.measure(c)];
      for (const [i, read] of reads.entries()) {
        const entry = figures.reads[i]!;
        say(`${read.name}: ${c} connection(s) through the gateway`);
        if (c !== 1) {
          entry.http[c] = await autocannon(target, read, c);
          continue;
        }
        const { cpu, ...stats } = await atOneConnection(target, read);
        entry.http[c] = stats;
        entry.cpu = cpu;
        entry.probe = await probe(target, read);
        entry.forwarded = await forwardedProbe(target, read);
        if (target.nats) entry.direct = await direct(target, read.subject, read.envelope, 1);
      }
      echoRuns.push(await echo.measure(c));
      figures.echo[c] = echoRuns;
    }
  } finally {
    echo.stop();
  }
  figures.peers = await measurePeers(target);
  return figures;
}

/** The read forwarded to its service: with tokens in turn, each verified once before the timed run. */
async function forwardedProbe(target: Target, read: Request): Promise<LatencyStats> {
  const tokens = Array.from({ length: FORWARDED_TOKENS }, (_, i) => target.mint(8 * 3600 + i));
  await probe(target, read, { tokens, maxRequests: tokens.length, durationMs: 60_000 });
  return probe(target, read, { tokens });
}

/** The echo's rate at a concurrency: the mean of its runs. */
const echoRate = (figures: HotFigures, c: number) =>
  (figures.echo[c] ?? []).reduce((sum, s) => sum + s.rps, 0) / Math.max(1, figures.echo[c]?.length ?? 0);

export interface HotTargetCheck {
  target: string;
  measured: string;
  met: boolean;
}

export function hotTargets(figures: HotFigures): HotTargetCheck[] {
  const peers = figures.peers
    ? PEER_CONNECTIONS.map((c) => {
        const [ours, theirs] = [figures.peers!.ours[c]!, figures.peers!.moleculer[c]!];
        return {
          target: `GET /hospital_charges repeated at ${c} connection(s): at least a cached Moleculer's rate, 0 errors`,
          measured: `${ours.rps} req/s against ${theirs.rps} (${(ours.rps / Math.max(1, theirs.rps)).toFixed(2)}x), ${ours.errors} errors`,
          met: ours.rps >= theirs.rps && ours.errors === 0,
        };
      })
    : [];
  return [...peers, ...echoTargets(figures)];
}

function echoTargets(figures: HotFigures): HotTargetCheck[] {
  return Object.entries(HOT_TARGETS).map(([conns, share]) => {
    const c = Number(conns);
    const echo = echoRate(figures, c);
    const ratios = figures.reads.map((r) => ({
      name: r.name,
      ratio: (r.http[c]?.rps ?? 0) / echo,
      errors: r.http[c]?.errors ?? 0,
    }));
    const worst = ratios.reduce((low, r) => (r.ratio < low.ratio ? r : low));
    const errors = ratios.reduce((n, r) => n + r.errors, 0);
    return {
      target: `every hot read at ${c} connection(s): >= ${share * 100}% of the raw NATS echo's rate, 0 errors`,
      measured: `lowest ${(worst.ratio * 100).toFixed(1)}% (${worst.name}; echo ${Math.round(echo)} req/s), ${errors} errors`,
      met: worst.ratio >= share && errors === 0,
    };
  });
}

export function hotLines(figures: HotFigures): string[] {
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  const lines = [
    '',
    'Hot reads (issue 31): req/s through the gateway and its share of the raw NATS echo of the same run',
    `${'read'.padEnd(34)} ${CONCURRENCY.map((c) => `${pad(`${c} conn`, 9)} ${pad('of echo', 8)}`).join(' | ')}`,
  ];
  lines.push('-'.repeat(lines[lines.length - 1]!.length));
  for (const read of figures.reads) {
    const cells = CONCURRENCY.map((c) => {
      const s = read.http[c];
      const share = s ? `${((s.rps / echoRate(figures, c)) * 100).toFixed(1)}%` : '-';
      return `${pad(s ? `${s.rps}${s.errors ? '!' : ''}` : '-', 9)} ${pad(share, 8)}`;
    });
    lines.push(`${read.name.padEnd(34)} ${cells.join(' | ')}`);
  }
  const echoCells = CONCURRENCY.map(
    (c) =>
      `${pad(Math.round(echoRate(figures, c)), 9)} ${pad(`(${(figures.echo[c] ?? []).map((s) => s.rps).join(', ')})`, 8)}`,
  );
  lines.push(`${'raw NATS echo (runs before, after)'.padEnd(34)} ${echoCells.join(' | ')}`);
  lines.push(
    '',
    "At one connection (p50, microsecond timing; CPU ms per request of each process). Forwarded: the gateway's",
    'reply cache not looked up; a hit: answered from it (the repeated read the table above measures).',
  );
  const echoP50 = figures.echo[1]?.[0]?.p50 ?? NaN;
  for (const read of figures.reads) {
    const http = read.forwarded?.p50;
    const straight = read.direct?.p50;
    const split =
      http !== undefined && straight !== undefined
        ? `forwarded ${http.toFixed(3)} ms = gateway ${(http - straight).toFixed(3)} + NATS hop ${echoP50.toFixed(3)} + service ${(straight - echoP50).toFixed(3)}`
        : '-';
    const hit = read.probe ? `; hit ${read.probe.p50.toFixed(3)} ms` : '';
    const cpu = read.cpu ? `; CPU gateway ${read.cpu.gateway.toFixed(3)}, service ${read.cpu.service.toFixed(3)}` : '';
    lines.push(`  ${read.name.padEnd(32)} ${split}${hit}${cpu}`);
  }
  if (figures.peers) lines.push(...peerLines(figures.peers));
  lines.push('', 'Targets:');
  for (const c of hotTargets(figures)) lines.push(`  ${c.met ? 'met   ' : 'MISSED'} ${c.target}: ${c.measured}`);
  return lines;
}
