import type { NatsConnection } from 'nats';
import { GATEWAY_MESSAGES, SERVICE_NAMES, ServiceSubjects, type ServiceName } from '@clinic/contracts';
import { callService, type HttpSpan } from '@clinic/service-kit';

/** The trace a health check joins: its first asker's. */
type Context = HttpSpan['context'];

/** The detailed report (`GET /health/details`, admin token). */
export interface HealthReport {
  success: boolean;
  error?: string;
  code?: 'SERVICE_UNAVAILABLE';
  status: 'ok' | 'degraded';
  gateway: 'ok';
  nats: 'ok' | 'down';
  /** The round trip to the NATS server that decided `nats`, when it answered. */
  nats_rtt_ms?: number;
  services: Record<ServiceName, { status: 'ok' | 'down'; detail?: string; instance?: string }>;
}

/** The anonymous answer (`GET /health`): whether the whole system answers, and nothing about its insides. */
export type Liveness = Pick<HealthReport, 'success' | 'error' | 'code' | 'status'>;

export const UNHEALTHY_MESSAGE = GATEWAY_MESSAGES.unhealthy;

/**
 * A PING to the NATS server and its PONG, within `timeoutMs`: the connection's
 * state flag stays "connected" for a while after the server dies.
 */
async function natsRoundTrip(nc: NatsConnection, timeoutMs: number): Promise<number | null> {
  if (nc.isClosed() || nc.isDraining()) return null;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
  });
  try {
    return await Promise.race([nc.rtt(), timeout]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** Asks NATS for a round trip and every service's `<service>.health` at once; healthy only when all answer ok. */
async function checkHealth(nc: NatsConnection, timeoutMs: number, traceContext?: Context): Promise<HealthReport> {
  const [rtt, ...entries] = await Promise.all([
    natsRoundTrip(nc, timeoutMs),
    ...SERVICE_NAMES.map(async (name) => {
      try {
        const reply = await callService(
          nc,
          ServiceSubjects[name].health,
          {},
          { correlationId: `health-${name}`, timeoutMs, traceContext },
        );
        if (reply.status === 200 && reply.body.success) {
          return [name, { status: 'ok' as const, instance: String(reply.body.instance ?? '') }] as const;
        }
        return [
          name,
          { status: 'down' as const, detail: reply.body.success ? 'unhealthy' : reply.body.error },
        ] as const;
      } catch (err) {
        return [name, { status: 'down' as const, detail: (err as Error).message }] as const;
      }
    }),
  ]);
  const natsUp = rtt !== null;
  const healthy = natsUp && entries.every(([, s]) => s.status === 'ok');
  return {
    success: healthy,
    ...(healthy ? {} : { error: UNHEALTHY_MESSAGE, code: 'SERVICE_UNAVAILABLE' as const }),
    status: healthy ? 'ok' : 'degraded',
    gateway: 'ok',
    nats: natsUp ? 'ok' : 'down',
    ...(natsUp ? { nats_rtt_ms: rtt } : {}),
    services: Object.fromEntries(entries) as HealthReport['services'],
  };
}

/** Health checks, one at a time: concurrent askers (anonymous ones included) share the check in progress. */
export class HealthChecker {
  private inProgress: Promise<HealthReport> | null = null;

  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs: number,
  ) {}

  /** `traceContext`: the asker's trace, which the check joins when it starts it. */
  report(traceContext?: Context): Promise<HealthReport> {
    this.inProgress ??= checkHealth(this.nc, this.timeoutMs, traceContext).finally(() => {
      this.inProgress = null;
    });
    return this.inProgress;
  }

  async liveness(traceContext?: Context): Promise<Liveness> {
    const { success, error, status } = await this.report(traceContext);
    return { success, ...(error ? { error, code: 'SERVICE_UNAVAILABLE' as const } : {}), status };
  }
}
