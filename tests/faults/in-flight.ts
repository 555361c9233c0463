/**
 * Requests a replica has received and not answered yet, read from its NATS
 * Services API figures ($SRV.STATS: requests received, and those answered):
 * a fault test kills the replica once some are, so that the kill meets
 * requests in flight however fast or slow the machine is, never after a
 * fixed pause.
 */
import type { ServiceStats } from 'nats';
import type { ServiceName } from '@clinic/contracts';
import { eventually, type TestStack } from '../e2e/harness';

/** Waits until replica `index` of `service` holds at least `count` requests of `subjects` unanswered. */
export async function untilInFlight(
  t: TestStack,
  service: ServiceName,
  index: number,
  subjects: readonly string[],
  count: number,
): Promise<void> {
  const nc = await t.nats('ops');
  const suffix = `-${t.stack.replica(service, index).pid}`;
  let id: string | undefined;
  for await (const info of await nc.services.client().info(service))
    if (info.metadata?.instance?.endsWith(suffix)) id = info.id;
  if (!id) throw new Error(`no instance of ${service} with pid ${suffix.slice(1)} answers discovery`);
  await eventually(
    async () => {
      const stats = (await nc.request(`$SRV.STATS.${service}.${id}`, '', { timeout: 2_000 })).json<ServiceStats>();
      const held = (stats.endpoints ?? [])
        .filter((e) => subjects.includes(e.subject))
        .reduce((sum, e) => sum + e.num_requests - ((e.data as { answered?: number } | undefined)?.answered ?? 0), 0);
      return held >= count ? held : undefined;
    },
    60_000,
    5,
  );
}
