/**
 * What the outbox e2e files share: their stack, started for each importing file
 * (the beforeAll and afterAll below run in every file that imports this module), its seed and helpers.
 */
import type { NatsConnection } from 'nats';
import type { Db } from 'mongodb';
import { eventStreamOf } from '@clinic/contracts';
import type { Infrastructure } from '@clinic/devstack';
import { connectNats, createLogger, type OutboxEntry } from '@clinic/service-kit/internal';
import { startLocalParts, stopLocalParts, type LocalParts } from './local-parts';

export const log = createLogger('outbox-test', 'silent');
export const STREAM = eventStreamOf('catalogue');
let parts: LocalParts;
export let infra: Infrastructure;
export let nc: NatsConnection;
/** Another hospital system, reading the stream through the pull consumer the service provisions for it. */
export let reader: NatsConnection;
export let db: Db;

beforeAll(async () => {
  parts = await startLocalParts('outbox', 'catalogue', 'outbox_test', log);
  ({ infra, nc, db } = parts);
  reader = await connectNats(
    { url: infra.natsUrl, user: 'hospital', password: infra.natsPasswords.hospital },
    { name: 'outbox-test-reader', log },
  );
});
afterAll(async () => {
  await reader?.close();
  await stopLocalParts(parts);
});

/** Event ids read from the stream so far, by entity key, in stream order. */
export const publishedByKey = new Map<string, string[]>();

/** Event ids stored on the stream for one entity key, in stream order (each call reads what is new). */
export async function publishedFor(key: string): Promise<string[]> {
  const consumer = await reader.jetstream().consumers.get(STREAM.name, 'hospital');
  for (let pending = (await consumer.info()).num_pending; pending > 0; pending = (await consumer.info()).num_pending) {
    const batch = await consumer.fetch({ max_messages: pending, expires: 2000 });
    for await (const m of batch) {
      const event = m.json<{ event_id: string; data: { key: string } }>();
      publishedByKey.set(event.data.key, [...(publishedByKey.get(event.data.key) ?? []), event.event_id]);
      m.ack();
    }
  }
  return publishedByKey.get(key) ?? [];
}

export async function waitUntil(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const entities = () => db.collection<{ _id: string; _event_ids: string[] }>('entities');
export const entries = () => db.collection<OutboxEntry>('outbox');
