/** The table every fault file prints and writes to bench-results/, and the services' errors of a failed check. */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@clinic/devstack';

/** Prints the table of a fault file's reports and writes them to bench-results/<file>. */
export function writeReports(file: string, reports: Record<string, unknown>[]): void {
  const dir = join(REPO_ROOT, 'bench-results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), `${JSON.stringify({ date: new Date().toISOString(), reports }, null, 2)}\n`);
  const cell = (value: unknown) =>
    value === undefined ? '-' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  const table = reports.map((r) =>
    [
      r.fault,
      r.attempts,
      r.succeeded,
      r.failed_by_status,
      r.hangs,
      r.bills_lost,
      r.duplicates,
      r.gaps,
      r.unconfirmed_but_stored,
      r.events_missing,
      r.events_duplicated,
      r.ref_records_missing,
      r.bill_changes,
      r.history_missing,
      r.history_without_change,
      r.updates_lost,
      r.payments_acknowledged,
      r.refunds_acknowledged,
      r.money_attempts_failed_by_status,
      r.money_lost,
      r.money_duplicated,
      r.money_stored_unacknowledged,
      r.money_events_missing,
      r.money_events_duplicated,
      r.ledger_records_missing,
      r.close_counted_cents === undefined ? undefined : `${r.close_counted_cents} / ${r.close_acknowledged_cents}`,
      r.recovery_ms,
    ]
      .map(cell)
      .join(' | '),
  );
  process.stdout.write(
    [
      '',
      'fault | attempts | succeeded | failed by status | hangs | bills lost | duplicates | gaps | stored without a 201 | events missing | events stored twice | reference records missing | bill changes | history missing | history without change | acknowledged updates lost | payments acknowledged | refunds acknowledged | their attempts failed | payments and refunds lost | duplicated | stored without a 201 | their events missing | stored twice | their ledger records missing | cash a close counted / acknowledged (cents) | recovery ms',
      ...table,
      '',
    ].join('\n'),
  );
}

/** The services' error lines grouped by log file and cause, so a failure in CI explains itself in the output. */
export function errorSummary(logDir: string): string {
  const counts = new Map<string, number>();
  for (const file of readdirSync(logDir).filter((f) => /^(billing|catalogue|sessions|gateway)/.test(f))) {
    for (const line of readFileSync(join(logDir, file), 'utf8').split('\n')) {
      if (!line.includes('"level":"error"') && !line.includes('"level":"warn"')) continue;
      try {
        const entry = JSON.parse(line) as {
          pid?: number;
          msg?: string;
          err?: { type?: string; message?: string } | string;
        };
        const cause =
          typeof entry.err === 'string' ? entry.err : entry.err ? `${entry.err.type}: ${entry.err.message}` : '';
        const key = `${file} pid ${entry.pid} ${entry.msg} ${cause}`.slice(0, 300);
        counts.set(key, (counts.get(key) ?? 0) + 1);
      } catch {
        // not a JSON line
      }
    }
  }
  return [...counts].map(([key, n]) => `  ${n} x ${key}\n`).join('');
}
