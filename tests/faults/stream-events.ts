/** The events of the bills on BILLING_EVENTS, read as another hospital system reads them. */
import type { NatsConnection } from 'nats';
import type { TestStack } from '../e2e/harness';

/**
 * What the stream holds so far, per stack: for each bill id its created
 * events, and for each payment_recorded or refunded event id its
 * publications, each as the stream sequences holding it, so that a
 * redelivery to the reader counts once and a second publication twice.
 */
export interface SeenEvents {
  createdBills: Map<number, Set<number>>;
  money: Map<string, Set<number>>;
}
const eventsSeen = new WeakMap<TestStack, SeenEvents>();

const seenAt = <K>(seen: Map<K, Set<number>>, key: K, seq: number) =>
  seen.set(key, (seen.get(key) ?? new Set<number>()).add(seq));

/** How many of these were stored on the stream more than once. */
export const storedTwice = <K>(seen: Map<K, Set<number>>) => [...seen.values()].filter((seqs) => seqs.size > 1).length;

/**
 * Reads BILLING_EVENTS as another hospital system does, through the pull
 * consumer provisioned for it, and returns what it has seen so far (events
 * are acknowledged, so each call reads only the new ones).
 */
export async function streamEvents(t: TestStack, nc: NatsConnection): Promise<SeenEvents> {
  const seen = eventsSeen.get(t) ?? { createdBills: new Map(), money: new Map() };
  eventsSeen.set(t, seen);
  const consumer = await nc.jetstream().consumers.get('BILLING_EVENTS', 'hospital');
  for (let pending = (await consumer.info()).num_pending; pending > 0; pending = (await consumer.info()).num_pending) {
    const batch = await consumer.fetch({ max_messages: Math.min(pending, 500), expires: 2000 });
    for await (const m of batch) {
      if (m.subject === 'billing.bill.created')
        seenAt(seen.createdBills, m.json<{ data: { bill: { id: number } } }>().data.bill.id, m.seq);
      if (m.subject === 'billing.bill.payment_recorded' || m.subject === 'billing.bill.refunded')
        seenAt(seen.money, m.json<{ event_id: string }>().event_id, m.seq);
      m.ack();
    }
  }
  return seen;
}
