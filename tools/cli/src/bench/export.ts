/**
 * Issue 28: GET /lab_bills/export of a branch's year, CSV and Excel, with
 * BENCH_EXPORT_BILLS bills (100,000 by default) in it: the time, the bytes,
 * and each process's peak RSS during the export (billing, gateway), read from
 * /proc after resetting it (clear_refs 5), so that what the export held shows
 * apart from what the load before it did.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { BillLoader, MEASURED_BRANCH, yearBefore } from './dataset';
import { say } from './measure';
import type { Target } from './target';

export const EXPORT_BILLS = Number(process.env.BENCH_EXPORT_BILLS ?? 100_000);

/** The pids of the stack's billing and gateway processes. */
function processes(target: Target): Record<string, number> {
  const found: Record<string, number> = {};
  const stack = target.stack;
  if (!stack) return found;
  (stack.services.get('billing') ?? []).forEach((proc, i) => {
    if (proc.pid) found[`billing-${i + 1}`] = proc.pid;
  });
  if (stack.gateway.pid) found.gateway = stack.gateway.pid;
  return found;
}

const kib = (pid: number, field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);

async function exportOnce(target: Target, range: string, format: string, pids: Record<string, number>) {
  for (const pid of Object.values(pids)) writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, kib(pid, 'VmRSS')]));
  const started = performance.now();
  const response = await fetch(`${target.gatewayUrl}/lab_bills/export?${range}&format=${format}`, {
    headers: { authorization: `Bearer ${target.token}` },
  });
  if (response.status !== 200) throw new Error(`export ${format}: ${response.status} ${await response.text()}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    if (format === 'csv') for (const byte of chunk) if (byte === 0x0a) lines++;
  }
  const seconds = (performance.now() - started) / 1000;
  const peak = Object.fromEntries(
    Object.entries(pids).map(([name, pid]) => [
      name,
      { before_mib: before[name]! / 1024, peak_mib: kib(pid, 'VmHWM') / 1024 },
    ]),
  );
  return { format, seconds, mib: bytes / 2 ** 20, ...(format === 'csv' ? { rows: lines - 1 } : {}), rss: peak };
}

/** A branch's year of EXPORT_BILLS bills (twice as many loaded: the measured branch holds half), exported twice. */
export async function measureExport(target: Target): Promise<Record<string, unknown>> {
  const dates = yearBefore(new Date());
  const loader = new BillLoader(target, dates);
  await loader.open();
  try {
    say(`loading bills up to ${(2 * EXPORT_BILLS).toLocaleString('en')} (half in branch ${MEASURED_BRANCH})`);
    await loader.loadTo(2 * EXPORT_BILLS);
  } finally {
    await loader.close();
  }
  const range = `store_id=${MEASURED_BRANCH}&from=${dates[0]}&to=${dates[dates.length - 1]}`;
  const pids = processes(target);
  const runs = [];
  for (const format of ['csv', 'xlsx']) {
    say(`export of branch ${MEASURED_BRANCH}'s year as ${format}`);
    runs.push(await exportOnce(target, range, format, pids));
  }
  return { bills_loaded: 2 * EXPORT_BILLS, runs };
}

/** The report's lines: per format, the time, the size, and each process's RSS before and at its peak. */
export function exportLines(figures: { bills_loaded: number; runs: Array<Record<string, any>> }): string[] {
  const lines = [
    '',
    `Export of branch ${MEASURED_BRANCH}'s year (GET /lab_bills/export, ${figures.bills_loaded.toLocaleString('en')} bills loaded, half in the branch):`,
  ];
  for (const run of figures.runs) {
    const rss = Object.entries(run.rss as Record<string, { before_mib: number; peak_mib: number }>)
      .map(([name, r]) => `${name} ${r.before_mib.toFixed(0)} -> peak ${r.peak_mib.toFixed(0)} MiB`)
      .join(', ');
    const rows = run.rows === undefined ? '' : `, ${run.rows.toLocaleString('en')} rows`;
    lines.push(`  ${run.format.padEnd(5)} ${run.seconds.toFixed(1)} s, ${run.mib.toFixed(1)} MiB${rows}; RSS: ${rss}`);
  }
  return lines;
}
