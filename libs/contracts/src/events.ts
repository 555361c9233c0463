import type { EventSubject } from './subjects';

/**
 * Every event a service publishes on JetStream. The JetStream message id
 * (`Nats-Msg-Id`) equals `event_id`, so a redelivery or a republished outbox
 * entry is recognisable.
 */
export interface DomainEvent<TData = Record<string, unknown>> {
  event_id: string;
  type: EventSubject;
  occurred_at: string;
  correlation_id: string | null;
  data: TData;
}
