import type { JsMsg, NatsConnection } from 'nats';
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
 * Reads an events stream the way another hospital service does: through the
 * durable pull consumer the service provisions for it (it may not create one),
 * explicit acks, message ids checked. Events stored before the reader started
 * are acknowledged and skipped.
 */
export class EventReader {
  readonly received: ReceivedEvent[] = [];
  private stopFn: (() => void) | null = null;

  private constructor(private readonly startSeq: number) {}

  static async start(nc: NatsConnection, stream: string, consumerName = 'hospital'): Promise<EventReader> {
    const jsm = await nc.jetstreamManager({ checkAPI: false });
    const reader = new EventReader((await jsm.streams.info(stream)).state.last_seq);
    const consumer = await nc.jetstream().consumers.get(stream, consumerName);
    const messages = await consumer.consume();
    reader.stopFn = () => messages.stop();
    void (async () => {
      for await (const m of messages) reader.accept(m);
    })();
    return reader;
  }

  private accept(m: JsMsg): void {
    if (m.seq > this.startSeq) {
      this.received.push({
        subject: m.subject,
        msgId: m.headers?.get('Nats-Msg-Id'),
        event: m.json<DomainEvent<any>>(),
        traceparent: m.headers?.get('traceparent') || undefined,
      });
    }
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
