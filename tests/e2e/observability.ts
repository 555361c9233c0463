/**
 * The real observability servers the tests start: Prometheus (Debian's
 * package, installed by bootstrap) and an OpenTelemetry Collector with the
 * OTLP receiver and the file exporter (tools/otel-collector, built by
 * bootstrap from the Go module proxy). Each on free loopback ports, with its
 * data in a temporary directory, stopped by the test.
 */
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  freeListeningPort,
  ManagedProcess,
  prometheusConfig,
  startOtelCollector,
  TOOLS_BIN,
  waitFor,
  type MetricsTarget,
} from '@clinic/devstack';

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

export interface Prometheus {
  url: string;
  /** The result vector of an instant PromQL query. */
  query(promql: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  log(): string;
  stop(): Promise<void>;
}

/** Prometheus scraping `targets` every second. */
export async function startPrometheus(targets: MetricsTarget[]): Promise<Prometheus> {
  const binary = executable(
    [process.env.PROMETHEUS_BIN ?? '', '/usr/bin/prometheus', join(TOOLS_BIN, 'prometheus')].filter(Boolean),
    'prometheus',
  );
  const dir = mkdtempSync(join(tmpdir(), 'clinic-prometheus-'));
  writeFileSync(join(dir, 'prometheus.yml'), prometheusConfig(targets, '1s'));
  const port = await freeListeningPort();
  const logFile = join(dir, 'prometheus.log');
  const server = new ManagedProcess({
    name: 'prometheus',
    command: binary,
    args: [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    output: { kind: 'file', path: logFile },
  });
  server.start();
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await server.stop();
    if (!process.env.KEEP_E2E_DATA) rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      'Prometheus to be ready',
      async () => server.unexpectedExit !== null || (await fetch(`${url}/-/ready`)).ok,
      30_000,
      200,
    );
    if (server.unexpectedExit) throw new Error('Prometheus exited at start-up');
  } catch (err) {
    const log = readFileSync(logFile, 'utf8');
    await stop();
    throw new Error(`${(err as Error).message}\n${log}`);
  }
  return {
    url,
    async query(promql) {
      const response = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query: promql })}`);
      const body = (await response.json()) as any;
      if (body.status !== 'success') throw new Error(`PromQL ${promql}: ${JSON.stringify(body)}`);
      return body.data.result;
    },
    log: () => readFileSync(logFile, 'utf8'),
    stop,
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
  const dir = mkdtempSync(join(tmpdir(), 'clinic-otelcol-'));
  const collector = await startOtelCollector(dir);
  return {
    endpoint: collector.endpoint,
    spans() {
      if (!existsSync(collector.outputFile)) return [];
      const spans: OtlpSpan[] = [];
      // Whole lines only: the collector may be writing the last one.
      const text = readFileSync(collector.outputFile, 'utf8');
      for (const line of text
        .slice(0, text.lastIndexOf('\n') + 1)
        .split('\n')
        .filter(Boolean)) {
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
    log: () => readFileSync(collector.logFile, 'utf8'),
    async stop() {
      await collector.stop();
      if (!process.env.KEEP_E2E_DATA) rmSync(dir, { recursive: true, force: true });
    },
  };
}
