import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOOLS_BIN } from './paths';
import { freeListeningPort, waitFor } from './ports';
import { ManagedProcess } from './process';

export interface OtelCollector {
  /** OTEL_EXPORTER_OTLP_ENDPOINT for the processes that send to it (OTLP over HTTP). */
  endpoint: string;
  /** One JSON line (OTLP JSON) per export received. */
  outputFile: string;
  logFile: string;
  stop(): Promise<void>;
}

export function otelCollectorBinary(): string {
  return process.env.OTELCOL_BIN ?? join(TOOLS_BIN, 'clinic-otelcol');
}

/**
 * The OpenTelemetry Collector of tools/otel-collector (built by bootstrap):
 * the OTLP receiver on a free loopback port, spans written to a file in `dir`.
 * For the tracing tests and the benchmark's tracing-on setting.
 */
export async function startOtelCollector(dir: string): Promise<OtelCollector> {
  mkdirSync(dir, { recursive: true });
  const port = await freeListeningPort();
  const outputFile = join(dir, 'traces.jsonl');
  const logFile = join(dir, 'otelcol.log');
  const config = {
    receivers: { otlp: { protocols: { http: { endpoint: `127.0.0.1:${port}` } } } },
    exporters: { file: { path: outputFile, flush_interval: '100ms' } },
    service: {
      telemetry: { metrics: { level: 'none' } },
      pipelines: { traces: { receivers: ['otlp'], exporters: ['file'] } },
    },
  };
  // JSON is YAML too.
  writeFileSync(join(dir, 'otelcol.yaml'), JSON.stringify(config, null, 2));
  const proc = new ManagedProcess({
    name: 'otelcol',
    command: otelCollectorBinary(),
    args: ['--config', join(dir, 'otelcol.yaml')],
    output: { kind: 'file', path: logFile },
  });
  proc.start();
  const log = () => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  try {
    await waitFor(
      'the OpenTelemetry Collector to be ready',
      async () => proc.unexpectedExit !== null || log().includes('Everything is ready'),
      30_000,
      100,
    );
    if (proc.unexpectedExit) throw new Error('the OpenTelemetry Collector exited at start-up');
  } catch (err) {
    await proc.stop();
    throw new Error(`${(err as Error).message}\n${log()}`);
  }
  return { endpoint: `http://127.0.0.1:${port}`, outputFile, logFile, stop: () => proc.stop() };
}
