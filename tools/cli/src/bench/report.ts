/** The benchmark's report: a text table on stdout, and JSON under bench-results/. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@clinic/devstack';
import { CONCURRENCY } from './measure';
import { exportLines } from './export';
import { hotLines } from './hot';
import { idleLines } from './idle';
import { channelingLines } from './channeling';
import { moneyLines, type MoneyFigures } from './money';
import type { NumberProblem } from './checks';
import type { WriteFigures } from './stats';
import type { LatencyStats } from './stats';
import { cpuByProcess } from './process-cpu';
import { checkTargets, moneyTargets } from './targets';

const ms = (n: number | null | undefined) =>
  (n === null || n === undefined || Number.isNaN(n) ? '-' : n.toFixed(2)).padStart(8);

function fmt(s: LatencyStats | undefined): string {
  if (!s) return '-'.padEnd(44);
  return `${String(s.rps).padStart(7)} ${ms(s.p50)} ${ms(s.p90)} ${ms(s.p99)} ${String(s.errors).padStart(6)}`;
}

function baselineLines(results: Record<string, any>): string[] {
  const lines: string[] = [];
  const header = `${'scenario'.padEnd(38)} ${'conns'.padStart(5)} | ${'req/s'.padStart(7)} ${'p50 ms'.padStart(8)} ${'p90 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(6)} | direct to the service over NATS`;
  lines.push(header, '-'.repeat(header.length + 20));
  for (const s of results.baseline.scenarios) {
    for (const c of CONCURRENCY)
      lines.push(`${s.name.padEnd(38)} ${String(c).padStart(5)} | ${fmt(s.http[c])} | ${fmt(s.direct[c])}`);
  }
  for (const c of CONCURRENCY)
    lines.push(
      `${'raw NATS echo (two Node processes)'.padEnd(38)} ${String(c).padStart(5)} | ${'-'.padEnd(44)} | ${fmt(results.echo[c])}`,
    );
  lines.push('', 'Where the time goes at one connection (p50, microsecond timing):');
  for (const s of results.baseline.scenarios) {
    const http = s.probe?.p50;
    const direct = s.direct[1]?.p50;
    const echo = results.echo[1].p50;
    if (typeof http !== 'number' || typeof direct !== 'number') continue;
    lines.push(
      `  ${s.name.padEnd(38)} http ${http.toFixed(2)} ms = gateway ${(http - direct).toFixed(2)} ms + NATS hop ${echo.toFixed(2)} ms + service ${(direct - echo).toFixed(2)} ms`,
    );
  }
  const measured = results.baseline.scenarios.filter((s: { cpu?: Record<string, number> }) => s.cpu);
  if (measured.length > 0)
    lines.push('', `CPU ms per request of each process, ${Math.max(...CONCURRENCY)} connections through the gateway:`);
  for (const s of measured) lines.push(`  ${s.name.padEnd(38)} ${cpuByProcess(s.cpu)}`);
  return lines;
}

function scaleLines(scale: Record<string, any>): string[] {
  const lines: string[] = [];
  const sizes: Array<{
    bills: number;
    load_seconds: number;
    reads: Record<string, { after_write: LatencyStats; repeat?: LatencyStats }>;
  }> = scale.sizes;
  // A scale run measures every read at each of SIZES, which has at least one size.
  const smallest = sizes[0]!;
  const largest = sizes[sizes.length - 1]!;
  const names = Object.keys(smallest.reads);
  lines.push(
    '',
    `At scale: p50 ms at one connection, right after a write to the branch (a bill dated on each day of the year in turn) / on repeat (half the bills in the measured branch)`,
  );
  const head = `${'read'.padEnd(30)} ${sizes.map((s) => `${s.bills.toLocaleString('en').padStart(10)} bills`.padStart(22)).join('')} ${'1M/10k'.padStart(8)}`;
  lines.push(head, '-'.repeat(head.length));
  for (const name of names) {
    const cells = sizes.map((s) => {
      const r = s.reads[name]!;
      return `${r.after_write.p50.toFixed(2)}${r.repeat ? ` / ${r.repeat.p50.toFixed(2)}` : ''}${r.after_write.errors ? ' ERR' : ''}`.padStart(
        22,
      );
    });
    const ratio =
      sizes.length > 1
        ? (largest.reads[name]!.after_write.p50 / smallest.reads[name]!.after_write.p50).toFixed(2)
        : '-';
    lines.push(
      `${name.padEnd(30)} ${cells.join('')} ${ratio.padStart(8)}${scale.inRatio.includes(name) ? '' : '  (not in the ratio target)'}`,
    );
  }
  lines.push(
    '',
    `Load (billing's storage layer, bulk): ${sizes.map((s) => `${s.bills.toLocaleString('en')} in ${Math.round(s.load_seconds)} s`).join(', ')} (cumulative steps)`,
  );
  lines.push('', `With ${largest.bills.toLocaleString('en')} bills, 64 connections, repeated reads:`);
  for (const [name, s] of Object.entries(scale.throughput as Record<string, LatencyStats>))
    lines.push(`  ${name.padEnd(30)} ${fmt(s)}`);
  if (scale.throughput_with_writes) {
    lines.push('', `The same while a bill is created in the branch every 100 ms (no cached read outlives it):`);
    for (const [name, s] of Object.entries(
      scale.throughput_with_writes as Record<string, LatencyStats & { writes: number }>,
    )) {
      lines.push(`  ${name.padEnd(30)} ${fmt(s)}   (${s.writes} bills created meanwhile)`);
    }
  }
  const rounds = (scale.writes_empty.today as WriteFigures).runs ? ', the median of the rounds after a warm-up' : '';
  lines.push('', `POST /lab_bills at 64 connections${rounds} (req/s, p50, p90, p99, errors):`);
  for (const when of ['today', '30 dates']) {
    const empty = scale.writes_empty[when] as WriteFigures;
    const full = scale.writes_full[when] as WriteFigures;
    lines.push(
      `  ${`dated ${when}`.padEnd(18)} empty database ${fmt(empty)} | ${largest.bills.toLocaleString('en')} bills ${fmt(full)} | ratio ${(full.rps / empty.rps).toFixed(2)}`,
    );
    // Runs saved before the rounds were introduced have one round and no list.
    if (empty.runs && full.runs)
      lines.push(
        `  ${''.padEnd(18)} each round's bills/s: empty ${empty.runs.join(' ')} | stored ${full.runs.join(' ')}`,
      );
  }
  for (const [name, s] of Object.entries(scale.single as Record<string, LatencyStats>))
    lines.push(`  ${name.padEnd(30)} one connection: p50 ${s.p50.toFixed(2)} ms, ${s.errors} errors`);
  if (scale.money) lines.push(...moneyLines(scale.money as MoneyFigures, largest.bills, fmt));
  const ss = scale.sessions;
  lines.push(
    '',
    `Sessions (${ss.sessions.toLocaleString('en')}, 50 doctors): preview of a month ${ss.preview_ms} ms (${ss.preview_entries} entries), ` +
      `auto-creation of a month ${ss.auto_create_ms} ms (${ss.auto_created} created), every session ${ss.all_sessions_ms} ms (${ss.all_sessions_count}), ` +
      `a branch's day p50 ${ss.day_after_write.p50.toFixed(2)} ms after a write / ${ss.day_repeat.p50.toFixed(2)} ms on repeat`,
  );
  const check = scale.bill_numbers;
  lines.push(
    '',
    `Bill numbers: ${check.bills.toLocaleString('en')} bills over ${check.dates} dates, ${check.gaps} gap(s): ${check.ok ? 'OK' : 'FAILED'}`,
    ...(check.problems ?? []).map(
      (p: NumberProblem) =>
        `  ${p.date}: ${p.bills} bills, highest number ${p.highest}; missing ${p.missing.join(', ') || 'none'}; stored twice ${p.repeated.join(', ') || 'none'}`,
    ),
  );
  lines.push('', 'Targets:');
  for (const c of checkTargets(scale)) lines.push(`  ${c.met ? 'met   ' : 'MISSED'} ${c.target}: ${c.measured}`);
  return lines;
}

function observabilityLines(figures: Record<string, any>): string[] {
  const lines = [
    '',
    `Metrics and tracing, on versus off (one stack each, ${figures.connections} connections, median of ${figures.rounds} runs taken in turn;`,
    "  req/s, p50, p90, p99, errors; change in req/s from all off; CPU ms per request of the gateway and services, change; each run's req/s):",
  ];
  const first = figures.settings.find((s: any) => s.scenarios);
  for (const setting of figures.settings) {
    if (!setting.scenarios) {
      lines.push(`  ${setting.name}: skipped, ${setting.skipped}`);
      continue;
    }
    for (const [name, stats] of Object.entries(
      setting.scenarios as Record<string, LatencyStats & { cpu_ms_per_request: number }>,
    )) {
      const base = first?.scenarios[name] as (LatencyStats & { cpu_ms_per_request: number }) | undefined;
      const change = (value: number, from: number | undefined) =>
        (from ? `${(((value - from) / from) * 100).toFixed(1)}%` : '-').padStart(8);
      const cpu = `${stats.cpu_ms_per_request.toFixed(3)} ms ${change(stats.cpu_ms_per_request, base?.cpu_ms_per_request)}`;
      lines.push(
        `  ${setting.name.padEnd(34)} ${name.padEnd(28)} ${fmt(stats)} ${change(stats.rps, base?.rps)} | ${cpu} | ${(setting.runs?.[name] ?? []).join(' ')}`,
      );
    }
  }
  return lines;
}

export function report(results: Record<string, any>, save: boolean): void {
  const lines = results.baseline ? baselineLines(results) : [];
  if (results.hot) lines.push(...hotLines(results.hot));
  if (results.idle) lines.push(...idleLines(results.idle));
  if (results.channeling) lines.push(...channelingLines(results.channeling));
  if (results.scale) lines.push(...scaleLines(results.scale));
  if (results.money) {
    lines.push(...moneyLines(results.money, results.money.bills, fmt));
    lines.push('', 'Targets:');
    for (const c of moneyTargets(results.money, results.money.bills))
      lines.push(`  ${c.met ? 'met   ' : 'MISSED'} ${c.target}: ${c.measured}`);
  }
  if (results.export) lines.push(...exportLines(results.export));
  if (results.observability) lines.push(...observabilityLines(results.observability));
  const text = lines.join('\n');
  process.stdout.write(`${text}\n`);
  if (!save) return;
  const dir = join(REPO_ROOT, 'bench-results');
  mkdirSync(dir, { recursive: true });
  const stamp = results.date.replace(/[:.]/g, '-');
  writeFileSync(join(dir, `bench-${stamp}.json`), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(dir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(dir, 'latest.txt'), `${text}\n`);
  process.stderr.write(`[bench] results written to bench-results/bench-${stamp}.json (and latest.json, latest.txt)\n`);
}
