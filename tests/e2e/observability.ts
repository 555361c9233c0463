/**
 * The real observability servers the tests start: Prometheus (Debian's
 * package, installed by bootstrap) and an OpenTelemetry Collector with the
 * OTLP receiver and the file exporter (tools/otel-collector, built by
 * bootstrap from the Go module proxy). Each on free loopback ports, with its
 * data in a temporary directory, stopped by the test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, closeSync, constants, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, prometheusConfig, TOOLS_BIN, waitFor, type MetricsTarget } from '@clinic/devstack';

function executable(candidates: string[], what: string): string {
  for (const path of candidates) {
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // next
    }
  }
  throw new Error(`${what} not found (${candidates.join(', ')}): run npm run bootstrap`);
}

class ServerProcess {
  private exited: Promise<void>;

  constructor(
    readonly child: ChildProcess,
    readonly dir: string,
    private readonly logPath: string,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  log(): string {
    return existsSync(this.logPath) ? readFileSync(this.logPath, 'utf8') : '';
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
      await this.exited;
      clearTimeout(timer);
    }
    if (!process.env.KEEP_E2E_DATA) rmSync(this.dir, { recursive: true, force: true });
  }
}

function startProcess(command: string, args: string[], dir: string): ServerProcess {
  const logPath = join(dir, 'server.log');
  const out = openSync(logPath, 'a');
  const child = spawn(command, args, { stdio: ['ignore', out, out] });
  closeSync(out);
  return new ServerProcess(child, dir, logPath);
}

export interface Prometheus {
  url: string;
  /** The result vector of an instant PromQL query. */
  query(promql: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  log(): string;
  stop(): Promise<void>;
}

/** Prometheus scraping `targets` every second. */
export async function startPrometheus(targets: MetricsTarget[]): Promise<Prometheus> {
  const binary = executable([process.env.PROMETHEUS_BIN ?? '', '/usr/bin/prometheus', join(TOOLS_BIN, 'prometheus')].filter(Boolean), 'prometheus');
  const dir = mkdtempSync(join(tmpdir(), 'clinic-prometheus-'));
  writeFileSync(join(dir, 'prometheus.yml'), prometheusConfig(targets, '1s'));
  const port = await freePort();
  const server = startProcess(binary, [
    `--config.file=${join(dir, 'prometheus.yml')}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
  ], dir);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor('Prometheus to be ready', async () => (await fetch(`${url}/-/ready`)).ok, 30_000, 200);
  } catch (err) {
    await server.stop();
    throw new Error(`${(err as Error).message}\n${server.log()}`);
  }
  return {
    url,
    async query(promql) {
      const response = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query: promql })}`);
      const body = (await response.json()) as any;
      if (body.status !== 'success') throw new Error(`PromQL ${promql}: ${JSON.stringify(body)}`);
      return body.data.result;
    },
    log: () => server.log(),
    stop: () => server.stop(),
  };
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  service: string;
  attributes: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** OTEL_EXPORTER_OTLP_ENDPOINT for the processes that send to it (OTLP over HTTP). */
  endpoint: string;
  /** Every span received so far. */
  spans(): OtlpSpan[];
  log(): string;
  stop(): Promise<void>;
}

function attributeValue(value: Record<string, unknown>): unknown {
  if ('stringValue' in value) return value.stringValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('boolValue' in value) return value.boolValue;
  if ('doubleValue' in value) return value.doubleValue;
  return value;
}

function attributes(list: Array<{ key: string; value: Record<string, unknown> }> | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, attributeValue(a.value)]));
}

/** The OpenTelemetry Collector (tools/otel-collector): OTLP over HTTP in, one JSON line per export out. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const binary = executable([process.env.OTELCOL_BIN ?? '', join(TOOLS_BIN, 'clinic-otelcol')].filter(Boolean), 'the OpenTelemetry Collector (clinic-otelcol)');
  const dir = mkdtempSync(join(tmpdir(), 'clinic-otelcol-'));
  const port = await freePort();
  const output = join(dir, 'traces.jsonl');
  const config = {
    receivers: { otlp: { protocols: { http: { endpoint: `127.0.0.1:${port}` } } } },
    exporters: { file: { path: output, flush_interval: '100ms' } },
    service: {
      telemetry: { metrics: { level: 'none' } },
      pipelines: { traces: { receivers: ['otlp'], exporters: ['file'] } },
    },
  };
  writeFileSync(join(dir, 'config.yaml'), JSON.stringify(config, null, 2));
  const server = startProcess(binary, ['--config', join(dir, 'config.yaml')], dir);
  try {
    await waitFor('the OTLP receiver to be ready', async () => server.log().includes('Everything is ready'), 30_000, 100);
  } catch (err) {
    await server.stop();
    throw new Error(`${(err as Error).message}\n${server.log()}`);
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans() {
      if (!existsSync(output)) return [];
      const spans: OtlpSpan[] = [];
      for (const line of readFileSync(output, 'utf8').split('\n').filter(Boolean)) {
        for (const rs of JSON.parse(line).resourceSpans ?? []) {
          const service = String(attributes(rs.resource?.attributes)['service.name']);
          for (const ss of rs.scopeSpans ?? []) {
            for (const span of ss.spans ?? []) {
              spans.push({
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId || undefined,
                name: span.name,
                kind: span.kind,
                service,
                attributes: attributes(span.attributes),
              });
            }
          }
        }
      }
      return spans;
    },
    log: () => server.log(),
    stop: () => server.stop(),
  };
}
