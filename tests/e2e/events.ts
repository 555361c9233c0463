import { AckPolicy, DeliverPolicy, type JsMsg, type NatsConnection } from 'nats';
import type { DomainEvent } from '@clinic/contracts';
import { eventually } from './harness';

export interface ReceivedEvent {
  subject: string;
  msgId: string | undefined;
  event: DomainEvent<any>;
  /** W3C trace context of the publication, when tracing is on. */
  traceparent?: string;
}

/**
 * Reads an events stream the way another hospital service would: its own
 * durable consumer, explicit acks, message ids checked.
 */
export class EventReader {
  readonly received: ReceivedEvent[] = [];
  private stopFn: (() => void) | null = null;

  private constructor() {}

  static async start(nc: NatsConnection, stream: string, durable = `reader-${Math.random().toString(36).slice(2)}`): Promise<EventReader> {
    const reader = new EventReader();
    const jsm = await nc.jetstreamManager();
    await jsm.consumers.add(stream, { durable_name: durable, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.New });
    const consumer = await nc.jetstream().consumers.get(stream, durable);
    const messages = await consumer.consume();
    reader.stopFn = () => messages.stop();
    void (async () => {
      for await (const m of messages) reader.accept(m);
    })();
    return reader;
  }

  private accept(m: JsMsg): void {
    this.received.push({
      subject: m.subject,
      msgId: m.headers?.get('Nats-Msg-Id'),
      event: m.json<DomainEvent<any>>(),
      traceparent: m.headers?.get('traceparent') || undefined,
    });
    m.ack();
  }

  /** Waits until `count` events match `predicate` and returns them. */
  async waitFor(predicate: (e: ReceivedEvent) => boolean, count = 1, timeoutMs = 10_000): Promise<ReceivedEvent[]> {
    return eventually(async () => {
      const matching = this.received.filter(predicate);
      return matching.length >= count ? matching : undefined;
    }, timeoutMs);
  }

  stop(): void {
    this.stopFn?.();
  }
}
