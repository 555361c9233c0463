// npm run bench: the demo data's baseline (gateway and direct to the services, and
// a raw NATS echo), then the system at scale: a year of a busy clinic chain's bills
// loaded in steps (BENCH_SIZES), reads measured after writes and on repeat at each,
// writes with the data stored and empty; last, what metrics and tracing cost, one stack
// per setting (observability.ts). BENCH_PARTS (baseline,scale,observability) picks the parts; `money`
// alone runs issue 25's payments and day-end at the largest of BENCH_SIZES (the scale part includes them);
// `export` (not in the default set: run it alone on a stack of its own) issue 28's export of BENCH_EXPORT_BILLS bills;
// `hot` (in the default set) issue 31's hot reads next to the raw NATS echo of the same run and a cached Moleculer;
// `idle` (in the default set) npm start at rest, the CPU of all its processes over a minute;
// `channeling` (in the default set) bookings per second and the 8 a.m. rush.
// Starts its own stack on the embedded default, or uses GATEWAY_URL (with NATS_URL
// and MONGO_URL for the baselines, the bulk load and the checks).
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fail } from '../args';
import { measureBaseline } from './baseline';
import { measureExport } from './export';
import { measureHot } from './hot';
import { measureIdle } from './idle';
import { measureChanneling } from './channeling';
import { measureObservability } from './observability';
import { BillLoader, seedScaleReferences, yearBefore } from './dataset';
import { measureMoney } from './money';
import { DURATION_S, echoBaseline, say } from './measure';
import { report } from './report';
import { measureScale, SIZES } from './scale';
import { startTarget, type Target } from './target';

async function main(): Promise<void> {
  say(`machine: ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB; ${DURATION_S} s per autocannon run`);
  const parts = new Set(
    (process.env.BENCH_PARTS ?? 'baseline,hot,channeling,idle,scale,observability').split(',').map((p) => p.trim()),
  );
  const scale = parts.has('scale');
  const moneyAlone = parts.has('money') && !scale;
  const exportPart = parts.has('export');
  const results: Record<string, any> = {
    date: new Date().toISOString(),
    machine: machine(),
    command: 'npm run bench',
    settings: {
      parts: [...parts],
      duration_s: DURATION_S,
      sizes: scale ? SIZES : [],
      log_level: process.env.BENCH_LOG_LEVEL ?? 'info',
      target: process.env.GATEWAY_URL ?? 'embedded default',
    },
  };
  if (parts.has('baseline') || parts.has('hot') || parts.has('channeling') || scale || moneyAlone || exportPart) {
    const target = await startTarget();
    // Ctrl-C or a timeout's SIGTERM stops the stack this run started, instead of leaving it running.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        say(`${signal}: stopping`);
        void target.stop().finally(() => process.exit(130));
      });
    }
    try {
      if (parts.has('baseline')) {
        results.baseline = await measureBaseline(target);
        say('raw NATS echo between two Node processes');
        results.echo = await echoBaseline();
      }
      if (parts.has('hot')) results.hot = await measureHot(target);
      if (parts.has('channeling')) results.channeling = await measureChanneling(target);
      if (scale || moneyAlone || exportPart) {
        say('reference data at scale: 100,000 patients, 50 doctors (through the reference stream)');
        results.references = await seedScaleReferences(target);
      }
      if (scale) results.scale = await measureScale(target);
      if (moneyAlone) results.money = await moneyAt(target, Math.max(...SIZES));
      if (exportPart) results.export = await measureExport(target);
    } finally {
      await target.stop();
    }
  }
  if (parts.has('idle')) {
    say('npm start at rest');
    results.idle = await measureIdle();
  }
  // Stacks of its own, one per setting; not with GATEWAY_URL, whose settings are not the bench's.
  if (parts.has('observability') && !process.env.GATEWAY_URL) {
    say('metrics and tracing on versus off: one stack per setting');
    results.observability = await measureObservability();
  }
  report(results, true);
  if (results.scale && !results.scale.bill_numbers.ok) process.exitCode = 1;
}

/** Issue 25's money figures alone, at `bills` stored. */
async function moneyAt(target: Target, bills: number): Promise<Record<string, unknown>> {
  const loader = new BillLoader(target, yearBefore(new Date()));
  await loader.open();
  try {
    say(`loading bills up to ${bills.toLocaleString('en')} through billing's storage layer`);
    await loader.loadTo(bills);
    return { bills, ...(await measureMoney(target, loader)) };
  } finally {
    await loader.close();
  }
}

function machine() {
  return {
    cores: cpus().length,
    cpu: cpus()[0]?.model,
    memory_gib: Math.round(totalmem() / 2 ** 30),
    node: process.version,
  };
}

// `--report <file.json>` prints the report of a saved run again.
const reportIndex = process.argv.indexOf('--report');
const reportFile = process.argv[reportIndex + 1];
if (reportIndex > 0) {
  if (reportFile === undefined) fail('usage: npm run bench -- --report <file.json>', 2);
  report(JSON.parse(readFileSync(reportFile, 'utf8')), false);
} else {
  main().catch((err: unknown) => {
    say(`failed: ${(err as Error).stack}`);
    process.exit(1);
  });
}
