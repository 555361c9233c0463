import type { NatsConnection } from 'nats';
import { SERVICE_NAMES, ServiceSubjects, type ServiceName } from '@clinic/contracts';
import { callService } from '@clinic/service-kit';

export interface HealthReport {
  success: boolean;
  error?: string;
  status: 'ok' | 'degraded';
  gateway: 'ok';
  nats: 'ok' | 'down';
  services: Record<ServiceName, { status: 'ok' | 'down'; detail?: string; instance?: string }>;
}

/** Whether the gateway's NATS connection is up now: a round trip, not only "not closed" (it may be reconnecting). */
async function natsAnswers(nc: NatsConnection, timeoutMs: number): Promise<boolean> {
  if (nc.isClosed() || nc.isDraining()) return false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([nc.rtt().then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Asks every service's `<service>.health` at once; healthy only when all answer ok. */
export async function checkHealth(nc: NatsConnection, timeoutMs: number): Promise<HealthReport> {
  const [natsUp, entries] = await Promise.all([natsAnswers(nc, timeoutMs), Promise.all(
    SERVICE_NAMES.map(async (name) => {
      try {
        const reply = await callService(nc, ServiceSubjects[name].health, {}, { correlationId: `health-${name}`, timeoutMs });
        if (reply.status === 200 && reply.body.success) {
          return [name, { status: 'ok' as const, instance: String(reply.body.instance ?? '') }] as const;
        }
        return [name, { status: 'down' as const, detail: reply.body.success ? 'unhealthy' : reply.body.error }] as const;
      } catch (err) {
        return [name, { status: 'down' as const, detail: (err as Error).message }] as const;
      }
    }),
  )]);
  const services = Object.fromEntries(entries) as HealthReport['services'];
  const healthy = natsUp && entries.every(([, s]) => s.status === 'ok');
  return {
    success: healthy,
    ...(healthy ? {} : { error: 'Some parts of the system are unavailable.' }),
    status: healthy ? 'ok' : 'degraded',
    gateway: 'ok',
    nats: natsUp ? 'ok' : 'down',
    services,
  };
}
