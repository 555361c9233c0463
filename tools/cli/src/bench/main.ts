// npm run bench: the demo data's baseline (gateway and direct to the services, and
// a raw NATS echo), then the system at scale: a year of a busy clinic chain's bills
// loaded in steps (BENCH_SIZES), reads measured after writes and on repeat at each,
// writes with the data stored and empty. BENCH_SCALE=0 skips the scale part. Last, what
// metrics and tracing cost (observability.ts): BENCH_ONLY=observability runs only that,
// BENCH_OBSERVABILITY=0 skips it.
// Starts its own stack on the embedded default, or uses GATEWAY_URL (with NATS_URL
// and MONGO_URL for the baselines, the bulk load and the checks).
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { measureBaseline } from './baseline';
import { measureObservability } from './observability';
import { seedScaleReferences } from './dataset';
import { DURATION_S, echoBaseline, say } from './measure';
import { report } from './report';
import { measureScale, SIZES } from './scale';
import { startTarget } from './target';

async function main(): Promise<void> {
  say(`machine: ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB; ${DURATION_S} s per autocannon run`);
  if (process.env.BENCH_ONLY === 'observability') {
    const results = { date: new Date().toISOString(), machine: machine(), command: 'BENCH_ONLY=observability npm run bench', settings: { duration_s: DURATION_S }, observability: await measureObservability() };
    report(results, true);
    return;
  }
  const target = await startTarget();
  const scale = process.env.BENCH_SCALE !== '0';
  const results: Record<string, any> = {
    date: new Date().toISOString(),
    machine: machine(),
    command: 'npm run bench',
    settings: { duration_s: DURATION_S, sizes: scale ? SIZES : [], log_level: process.env.BENCH_LOG_LEVEL ?? 'info', target: process.env.GATEWAY_URL ?? 'embedded default' },
  };
  try {
    results.baseline = await measureBaseline(target);
    say('raw NATS echo between two Node processes');
    results.echo = await echoBaseline();
    if (scale) {
      say('reference data at scale: 100,000 patients, 50 doctors (through the reference stream)');
      results.references = await seedScaleReferences(target);
      results.scale = await measureScale(target);
    }
  } finally {
    await target.stop();
  }
  // Stacks of its own, one per setting; not with GATEWAY_URL, whose settings are not the bench's.
  if (!process.env.GATEWAY_URL && process.env.BENCH_OBSERVABILITY !== '0') {
    say('metrics and tracing on versus off: one stack per setting');
    results.observability = await measureObservability();
  }
  report(results, true);
  if (results.scale && !results.scale.bill_numbers.ok) process.exitCode = 1;
}

function machine() {
  return { cores: cpus().length, cpu: cpus()[0]?.model, memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version };
}

// `--report <file.json>` prints the report of a saved run again.
const reportIndex = process.argv.indexOf('--report');
if (reportIndex > 0) {
  report(JSON.parse(readFileSync(process.argv[reportIndex + 1], 'utf8')), false);
} else {
  main().catch((err: unknown) => {
    say(`failed: ${(err as Error).stack}`);
    process.exit(1);
  });
}
