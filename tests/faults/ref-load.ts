/**
 * A steady publication of reference records (patients, which billing keeps),
 * as another hospital system would send them: one at a time, each with a
 * Nats-Msg-Id, retried with the same id after a failure (the stream drops a
 * duplicate). Every acknowledgement is kept: an acknowledged record must be on
 * the stream and in billing's read model afterwards.
 */
import type { NatsConnection } from 'nats';
import { refSubject } from '@clinic/contracts';
import { LoadLoops } from './load-loops';

export interface RefLoadOptions {
  nc: NatsConnection;
  /** Record ids start here, so that loads do not overlap. */
  firstId: number;
  /** Attempts per record; 1 to count each publication once (the minority's). */
  maxAttempts?: number;
  timeoutMs?: number;
}

export class RefLoad extends LoadLoops {
  /** Acknowledged records: id -> stream sequence. */
  readonly acked = new Map<number, number>();
  attempts = 0;
  failures = 0;
  private nextId: number;

  constructor(private readonly options: RefLoadOptions) {
    super(1);
    this.nextId = options.firstId;
  }

  get published(): number {
    return this.nextId - this.options.firstId;
  }

  protected async loop(): Promise<void> {
    const js = this.options.nc.jetstream({ timeout: this.options.timeoutMs ?? 2_000 });
    while (this.running) {
      const id = this.nextId++;
      for (let i = 0; i < (this.options.maxAttempts ?? 10) && this.running; i++) {
        this.attempts++;
        try {
          const ack = await js.publish(refSubject('patient'), JSON.stringify({ id, name: `Fault Patient ${id}` }), {
            msgID: `fault-patient-${id}`,
          });
          this.acked.set(id, ack.seq);
          break;
        } catch {
          this.failures++;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    }
  }
}
