/**
 * The targets of the scale benchmark (a year of a busy clinic chain on the
 * embedded default), each checked against the figures of a run.
 */
import type { MoneyFigures } from './money';
import type { LatencyStats } from './stats';

export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean;
}

const LIST_READS = ['list page 1', 'list of a date', 'list of a week, Cash', 'list page 200'];
const EXACT_SEARCHES = ['search a full bill number', 'search a full contact'];
const SUBSTRING_SEARCHES = ['search "silva" (a tenth)', 'search "12" (most)', 'search "thari" (a word part)'];
const SUMMARIES = ['summary of a day', 'summary of a month', 'summary of a year', 'summary of everything'];

const fixed = (n: number) => n.toFixed(2);

/** The worst p50 of some reads at the largest size (after a write, and on repeat when measured). */
function worstP50(
  reads: Record<string, { after_write: LatencyStats; repeat?: LatencyStats }>,
  names: string[],
): { p50: number; errors: number; which: string } {
  let worst = { p50: 0, errors: 0, which: '' };
  for (const name of names) {
    const read = reads[name];
    if (!read) continue;
    for (const [when, stats] of [
      ['after a write', read.after_write],
      ['repeated', read.repeat],
    ] as const) {
      if (!stats) continue;
      worst.errors += stats.errors;
      if (stats.p50 > worst.p50) worst = { ...worst, p50: stats.p50, which: `${name}, ${when}` };
    }
  }
  return worst;
}

export function checkTargets(scale: Record<string, any>): TargetCheck[] {
  const sizes = scale.sizes as Array<{
    bills: number;
    reads: Record<string, { after_write: LatencyStats; repeat?: LatencyStats }>;
  }>;
  // A scale run measures every read at each of SIZES, which has at least one size.
  const largest = sizes[sizes.length - 1]!;
  const smallest = sizes[0]!;
  const checks: TargetCheck[] = [];
  const p50Target = (label: string, names: string[], limitMs: number) => {
    const worst = worstP50(largest.reads, names);
    checks.push({
      target: `${label}: p50 <= ${limitMs} ms, 0 errors`,
      measured: `worst ${fixed(worst.p50)} ms (${worst.which}), ${worst.errors} errors`,
      met: worst.p50 <= limitMs && worst.errors === 0,
    });
  };
  p50Target('GET /lab_bills (page 1, a date, a week and method, page 200), 1 connection', LIST_READS, 15);
  for (const [label, figures] of [
    ['repeated', scale.throughput],
    ['a bill created in the branch every 100 ms', scale.throughput_with_writes],
  ] as const) {
    const entries = Object.entries((figures ?? {}) as Record<string, LatencyStats>);
    const slowest = entries.reduce((low, [name, s]) => (s.rps < low.rps ? { name, rps: s.rps } : low), {
      name: '-',
      rps: Infinity,
    });
    const errors = entries.reduce((n, [, s]) => n + s.errors, 0);
    checks.push({
      target: `GET /lab_bills at 64 connections, ${label}: >= 1,500 req/s, 0 errors`,
      measured: `lowest ${slowest.rps} req/s (${slowest.name}), ${errors} errors`,
      met: entries.length > 0 && slowest.rps >= 1500 && errors === 0,
    });
  }
  p50Target('search of a full bill number or contact', EXACT_SEARCHES, 30);
  p50Target('search of any other substring', SUBSTRING_SEARCHES, 500);
  p50Target(
    'GET /lab_bills/summary (a day, a month, a year, everything), the first read after a write included',
    SUMMARIES,
    20,
  );
  const single = {
    'GET /lab_bills/{id}': largest.reads['GET /lab_bills/{id}']?.after_write,
    ...(scale.single as Record<string, LatencyStats>),
  };
  for (const [name, stats] of Object.entries(single)) {
    if (stats)
      checks.push({
        target: `${name}: p50 <= 10 ms`,
        measured: `${fixed(stats.p50)} ms, ${stats.errors} errors`,
        met: stats.p50 <= 10 && stats.errors === 0,
      });
  }
  for (const when of ['today', '30 dates']) {
    const empty = scale.writes_empty[when] as LatencyStats;
    const full = scale.writes_full[when] as LatencyStats;
    const ratio = full.rps / empty.rps;
    checks.push({
      target: `POST /lab_bills dated ${when}, 64 connections, ${largest.bills.toLocaleString('en')} bills stored: >= 500 bills/s and >= 80% of the empty database's rate`,
      measured: `${full.rps} bills/s (empty: ${empty.rps}, ratio ${fixed(ratio)}), ${full.errors} errors`,
      met: full.rps >= 500 && ratio >= 0.8 && full.errors === 0,
    });
  }
  const ss = scale.sessions;
  checks.push({
    target: 'GET /all_sessions?store_id&date with a year of sessions: p50 <= 15 ms',
    measured: `${fixed(ss.day_after_write.p50)} ms after a write, ${fixed(ss.day_repeat.p50)} ms repeated`,
    met: Math.max(ss.day_after_write.p50, ss.day_repeat.p50) <= 15,
  });
  checks.push({
    target: 'preview of a month for 50 doctors: <= 1 s',
    measured: `${ss.preview_ms} ms`,
    met: ss.preview_ms <= 1000,
  });
  checks.push({
    target: 'auto-creation of a month for 50 doctors: <= 1 s',
    measured: `${ss.auto_create_ms} ms`,
    met: ss.auto_create_ms <= 1000,
  });
  checks.push({
    target: 'GET /all_sessions without a filter answers every session',
    measured: `${ss.all_sessions_count} of ${ss.stored_sessions ?? ss.sessions} stored, in ${ss.all_sessions_ms} ms`,
    met: ss.all_sessions_count === (ss.stored_sessions ?? ss.sessions),
  });
  if (sizes.length > 1) {
    const ratios = (scale.inRatio as string[]).map((name) => ({
      name,
      ratio: largest.reads[name]!.after_write.p50 / smallest.reads[name]!.after_write.p50,
    }));
    const worst = ratios.reduce((a, b) => (b.ratio > a.ratio ? b : a));
    checks.push({
      target: `p50 at ${largest.bills.toLocaleString('en')} bills / at ${smallest.bills.toLocaleString('en')}: <= 2 for every read but the general substring search`,
      measured: `worst ${fixed(worst.ratio)} (${worst.name})`,
      met: worst.ratio <= 2,
    });
  }
  const exact = scale.summaries_exact;
  if (exact) {
    checks.push({
      target:
        'summaries exact to the cent (a day, a month, the whole branch, against the stored bills summed in cents)',
      measured: exact.ok ? `${exact.checked} of ${exact.checked} exact` : exact.mismatches.join('; '),
      met: exact.ok,
    });
  }
  if (scale.money) checks.push(...moneyTargets(scale.money, largest.bills));
  const numbers = scale.bill_numbers;
  checks.push({
    target: 'bill numbers unique and gap-free',
    measured: `${numbers.bills.toLocaleString('en')} bills over ${numbers.dates} dates, ${numbers.gaps} gaps`,
    met: numbers.ok,
  });
  return checks;
}

/** Issue 25's targets: payments at 64 connections, and the day-end right after a payment. */
export function moneyTargets(money: MoneyFigures, bills: number): TargetCheck[] {
  const { payments, day_end_after_payment: dayEnd } = money;
  return [
    {
      target: `POST /lab_bills/{id}/payments at 64 connections, ${bills.toLocaleString('en')} bills stored: >= 500/s, 0 errors`,
      measured: `${payments.rps}/s (rounds ${payments.runs.join(', ')}), ${payments.errors} errors`,
      met: payments.rps >= 500 && payments.errors === 0,
    },
    {
      target: `GET /lab_bills/day_end of a day of about ${money.day_bills.toLocaleString('en')} bills right after a payment: p50 <= 20 ms`,
      measured: `${fixed(dayEnd.p50)} ms, ${dayEnd.errors} errors`,
      met: dayEnd.p50 <= 20 && dayEnd.errors === 0,
    },
  ];
}
