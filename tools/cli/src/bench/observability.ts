/**
 * What metrics and tracing cost, side by side in one run: the same stack
 * started once per setting (metrics and tracing off, as before issue 13;
 * metrics on; metrics on and requests traced, at several sampling ratios, to
 * a local OpenTelemetry Collector), each measured on a read and on bill creation at the same
 * connections, in turn, for several rounds (the median run is reported).
 * Run on its own with BENCH_PARTS=observability.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { nodeProcesses, totalCpu, withCpuPerRequest } from './process-cpu';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { otelCollectorBinary, Stack, startOtelCollector, type OtelCollector } from '@clinic/devstack';
import { loadDemoDataOnFirstStart } from '../demo';
import { autocannon, say, type Request } from './measure';
import { medianByRate, type LatencyStats } from './stats';
import { adminTokens, api, type Target } from './target';

export const OBSERVABILITY_CONNECTIONS = Number(process.env.BENCH_OBSERVABILITY_CONNECTIONS ?? 16);
/** Each setting is measured this many times, in turn with the others, and its median run kept. */
export const OBSERVABILITY_ROUNDS = Number(process.env.BENCH_OBSERVABILITY_ROUNDS ?? 3);

interface Setting {
  name: string;
  metrics: boolean;
  tracing: boolean;
  /** OTEL_* variables of this setting (the SDK's sampler, batch processor, propagators). */
  env?: Record<string, string>;
}

/**
 * Tracing as it runs by default (one new trace in a hundred, W3C trace context only), with one in ten and with
 * every request traced: what the default costs, what sampling saves and what it cannot (the work done for every
 * request, sampled or not; docs/PERFORMANCE.md, Metrics and tracing).
 */
const SETTINGS: Setting[] = [
  { name: 'metrics off, tracing off', metrics: false, tracing: false },
  { name: 'metrics on, tracing off', metrics: true, tracing: false },
  { name: 'metrics on, tracing 1 in 100 (default)', metrics: true, tracing: true },
  {
    name: 'metrics on, tracing 1 in 10',
    metrics: true,
    tracing: true,
    env: { OTEL_TRACES_SAMPLER_ARG: '0.1' },
  },
  {
    name: 'metrics on, tracing every request',
    metrics: true,
    tracing: true,
    env: { OTEL_TRACES_SAMPLER: 'parentbased_always_on' },
  },
];

export interface ObservabilityFigures {
  connections: number;
  rounds: number;
  settings: Array<
    | { name: string; scenarios: Record<string, RunStats>; runs: Record<string, number[]> }
    | { name: string; skipped: string }
  >;
}

type RunStats = LatencyStats & { cpu_ms_per_request: number };

interface RunningSetting {
  setting: Setting;
  target: Target;
  requests: Array<{ name: string } & Request>;
  stop(): Promise<void>;
}

async function startSetting(setting: Setting, index: number): Promise<RunningSetting> {
  const dataDir = mkdtempSync(join(tmpdir(), 'clinic-bench-obs-'));
  let collector: OtelCollector | null = null;
  let stack: Stack | null = null;
  const stop = async () => {
    await stack?.stop();
    await collector?.stop();
    if (!process.env.BENCH_KEEP_DATA) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const env: Record<string, string> = {
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      REQUEST_TIMEOUT_MS: '30000',
    };
    if (setting.tracing) {
      collector = await startOtelCollector(join(dataDir, 'otelcol'));
      Object.assign(env, setting.env, { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint });
    }
    stack = await Stack.start({ dataDir, infra: 'local', serviceOutput: 'file', metrics: setting.metrics, env });
    const target: Target = {
      gatewayUrl: stack.gatewayUrl,
      ...adminTokens(stack.signingKey()),
      stack,
      stop: async () => undefined,
    };
    await loadDemoDataOnFirstStart(stack, target.token);
    const items = (await api(target, 'GET', '/hospital_charges?store_id=1&status=Active')).charges.slice(0, 3);
    const requests: RunningSetting['requests'] = [
      { name: 'GET /hospital_charges', method: 'GET', path: '/hospital_charges', query: { store_id: '1' } },
      {
        name: 'POST /lab_bills (3 items)',
        method: 'POST',
        path: '/lab_bills',
        body: {
          patient_name: 'Bench Patient',
          patient_contact: '0771234567',
          bill_date: `2093-01-${String(index + 1).padStart(2, '0')}`,
          payment_method: 'Cash',
          store_id: 1,
          items: items.map((c: any) => ({ charge_id: c.id, charge_name: c.charge_name, unit_price: c.amount, qty: 1 })),
        },
      },
    ];
    return { setting, target, requests, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** What metrics and tracing cost in CPU per request holds even where a busy machine makes req/s swing. */
async function measureRun(r: RunningSetting, request: Request): Promise<RunStats> {
  const { cpu, ...stats } = await withCpuPerRequest(nodeProcesses(r.target.stack!), () =>
    autocannon(r.target, request, OBSERVABILITY_CONNECTIONS),
  );
  return { ...stats, cpu_ms_per_request: totalCpu(cpu) };
}

/**
 * The stacks run at once and are measured in turn, round after round,
 * so that whatever else the machine does weighs on each setting alike.
 */
export async function measureObservability(): Promise<ObservabilityFigures> {
  const results: ObservabilityFigures = {
    connections: OBSERVABILITY_CONNECTIONS,
    rounds: OBSERVABILITY_ROUNDS,
    settings: [],
  };
  const running: RunningSetting[] = [];
  try {
    for (const [index, setting] of SETTINGS.entries()) {
      if (setting.tracing && !existsSync(otelCollectorBinary())) {
        results.settings.push({
          name: setting.name,
          skipped: `${otelCollectorBinary()} is missing (npm run bootstrap builds it)`,
        });
        continue;
      }
      say(`observability: starting a stack with ${setting.name}`);
      running.push(await startSetting(setting, index));
    }
    const runs = new Map<RunningSetting, Record<string, RunStats[]>>(running.map((r) => [r, {}]));
    for (const name of running[0]?.requests.map((r) => r.name) ?? []) {
      for (let round = 1; round <= OBSERVABILITY_ROUNDS; round++) {
        for (const r of running) {
          const { name: _name, ...request } = r.requests.find((q) => q.name === name)!;
          say(
            `observability, round ${round}/${OBSERVABILITY_ROUNDS}, ${r.setting.name}: ${name} at ${OBSERVABILITY_CONNECTIONS} connections`,
          );
          const byName = runs.get(r)!;
          const measured = byName[name] ?? [];
          byName[name] = measured;
          measured.push(await measureRun(r, request));
        }
      }
    }
    for (const r of running) {
      const byScenario = runs.get(r)!;
      results.settings.push({
        name: r.setting.name,
        scenarios: Object.fromEntries(Object.entries(byScenario).map(([name, list]) => [name, medianByRate(list)])),
        runs: Object.fromEntries(Object.entries(byScenario).map(([name, list]) => [name, list.map((s) => s.rps)])),
      });
    }
  } finally {
    for (const r of running) await r.stop();
  }
  results.settings.sort(
    (a, b) => SETTINGS.findIndex((s) => s.name === a.name) - SETTINGS.findIndex((s) => s.name === b.name),
  );
  return results;
}
