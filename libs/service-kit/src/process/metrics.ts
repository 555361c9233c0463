/**
 * Prometheus metrics (prom-client) on METRICS_PORT at /metrics, per process; unset, nothing is served and the
 * helpers return at once. What each process exports: docs/operations.md, Metrics.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import client from 'prom-client';
import { integerVar, type EnvProperties, type EnvValues } from './env';
import type { Logger } from './logger';

export const metricsRegistry = new client.Registry();

let enabled = false;

export function metricsEnabled(): boolean {
  return enabled;
}

export interface MetricsSettings {
  /** 0: no metrics. */
  port: number;
  host: string;
}

export const METRICS_ENV = {
  METRICS_PORT: integerVar(
    0,
    'The port of `/metrics` (Prometheus) and of the readiness `/health`; 0: none (npm start and tests give each process a free one).',
  ),
  METRICS_HOST: {
    type: 'string',
    default: '0.0.0.0',
    description: 'The address metrics listen on (npm start: `127.0.0.1`).',
  },
} as const satisfies EnvProperties;

export function metricsSettingsOf(env: EnvValues<typeof METRICS_ENV>): MetricsSettings {
  return { port: env.METRICS_PORT, host: env.METRICS_HOST };
}

export interface MetricsEndpoint {
  url: string;
  /** From now on `GET /health` on this port answers 200 while `check` says ready (before: 503). */
  setReadiness(check: () => Promise<boolean>): void;
  close(): Promise<void>;
}

/** How long a readiness check may take before the process counts as not ready. */
const READINESS_TIMEOUT_MS = 2_000;

async function ready(check: (() => Promise<boolean>) | null): Promise<boolean> {
  if (!check) return false;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), READINESS_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check(), late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Turns metrics on and serves them at http://host:port/metrics, or does
 * nothing (and returns null) when the port is 0. The same port answers
 * `GET /health` with the process's own readiness (`{"status":"ok"}` 200, or
 * 503): what container healthchecks and a load balancer ask, on a port that
 * carries no patient data (the gateway's `/health` on the API port tells
 * whether the whole system answers).
 */
export async function startMetrics(
  processName: string,
  settings: MetricsSettings,
  log: Logger,
): Promise<MetricsEndpoint | null> {
  if (!settings.port) return null;
  let readiness: (() => Promise<boolean>) | null = null;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/health') {
      void ready(readiness).then((ok) =>
        res
          .writeHead(ok ? 200 : 503, { 'content-type': 'application/json' })
          .end(JSON.stringify({ status: ok ? 'ok' : 'unavailable' })),
      );
      return;
    }
    if (req.method !== 'GET' || path !== '/metrics') {
      res
        .writeHead(404, { 'content-type': 'text/plain' })
        .end('Not found: metrics are at /metrics, readiness at /health\n');
      return;
    }
    metricsRegistry
      .metrics()
      .then((text) => res.writeHead(200, { 'content-type': metricsRegistry.contentType }).end(text))
      .catch((err: unknown) => {
        log.error({ err }, 'metrics collection failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
      });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(settings.port, settings.host, () => resolve());
    });
  } catch (err) {
    // Requests matter more than their metrics: the process runs on, and Prometheus shows this target down.
    log.error({ err, metrics_port: settings.port }, 'metrics not served: the port cannot be listened on');
    enabled = false;
    return null;
  }
  enabled = true;
  metricsRegistry.setDefaultLabels({ process_name: processName });
  // The event loop's delay sampled once a second: prom-client's default (10 ms) wakes an idle process 100 times a second.
  client.collectDefaultMetrics({ register: metricsRegistry, eventLoopMonitoringPrecision: 1_000 });
  const { port } = server.address() as AddressInfo;
  const url = `http://${settings.host === '0.0.0.0' ? '127.0.0.1' : settings.host}:${port}/metrics`;
  log.info({ metrics_url: url }, 'metrics served');
  return {
    url,
    setReadiness: (check) => {
      readiness = check;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function counter<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[] = [],
): client.Counter<L> {
  return new client.Counter({ name, help, labelNames, registers: [metricsRegistry] });
}

export function gauge<L extends string>(config: Omit<client.GaugeConfiguration<L>, 'registers'>): client.Gauge<L> {
  return new client.Gauge({ ...config, registers: [metricsRegistry] });
}

export function histogram<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  buckets: number[],
): client.Histogram<L> {
  return new client.Histogram({ name, help, labelNames, buckets, registers: [metricsRegistry] });
}

/** Seconds; from 1 ms (a cached read) to 10 s (past the gateway's timeout). */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const natsRequests = counter(
  'clinic_nats_requests_total',
  'NATS requests this process sent, by subject and outcome (ok, 503: no responder, 504: no reply in time, error)',
  ['subject', 'outcome'],
);

export type NatsRequestOutcome = 'ok' | '503' | '504' | 'error';

export function countNatsRequest(subject: string, outcome: NatsRequestOutcome): void {
  if (enabled) natsRequests.inc({ subject, outcome });
}

const droppedMessages = counter(
  'clinic_nats_messages_dropped_total',
  'Messages on a service subject that were not answered (no reply subject, a stream delivery, a reply subject that is no user inbox), by subject and reason',
  ['subject', 'reason'],
);

export type UnansweredReason = 'no_reply' | 'stream_delivery' | 'foreign_reply';

export function countUnanswered(subject: string, reason: UnansweredReason): void {
  if (enabled) droppedMessages.inc({ subject, reason });
}

const handledMessages = counter(
  'clinic_nats_messages_handled_total',
  'Requests a service answered, by subject and reply status',
  ['subject', 'status'],
);
const handlingSeconds = histogram(
  'clinic_nats_message_duration_seconds',
  'Time from receiving a request to answering it, by subject',
  ['subject'],
  LATENCY_BUCKETS,
);

export function observeHandled(subject: string, status: number, durationMs: number): void {
  if (!enabled) return;
  handledMessages.inc({ subject, status: String(status) });
  handlingSeconds.observe({ subject }, durationMs / 1000);
}
