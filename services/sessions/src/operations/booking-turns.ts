/**
 * The turns of a session's bookings in this process, and the refusals that need no turn: a booking the session
 * already refuses (full of its own bookings, closed, past) is refused from a read, or from this process's latest
 * booking when that filled the session while the request waited (the 8 a.m. rush's losers).
 */
import {
  foundInBranch,
  ServiceError,
  type ClinicClock,
  type HandlerContext,
  type IdempotencyClaim,
} from '@clinic/service-kit';
import { KeyedMutex, type RecordWrite } from '@clinic/service-kit/storage';
import type { BookingInput } from '../domain/appointment-input';
import { nextNumber } from '../domain/appointments';
import type { SessionDoc } from '../domain/session';
import type { SessionStorage } from '../storage';

/** How many sessions' latest bookings a process remembers (the sessions of a morning's rush, with room). */
const FILLED_KEPT = 256;

export class BookingTurns {
  /** Bookings of one session in this process, one at a time. */
  private readonly turns = new KeyedMutex();
  /** Per session: the session as this process's latest booking left it, and when. */
  private readonly lastBooked = new Map<number, { session: SessionDoc; at: number }>();

  constructor(
    private readonly storage: SessionStorage,
    private readonly clock: ClinicClock,
  ) {}

  /**
   * The booking's write, in its turn among the session's bookings here. A booking that waited while this
   * process's latest booking filled the session is refused from that write, without a read: the rush's
   * queued losers. One that came after it read the session itself (refuseEarly).
   */
  async inTurn(
    sessionId: number,
    arrived: number,
    source: BookingInput['source'],
    claim: IdempotencyClaim | null,
    ctx: HandlerContext,
    decide: (existing: SessionDoc) => Promise<RecordWrite<SessionDoc> | null>,
  ): Promise<SessionDoc | null | 'unchanged'> {
    return this.turns.run(String(sessionId), async () => {
      const last = this.lastBooked.get(sessionId);
      if (last && last.at > arrived) await this.refuseFrom(last.session, source, claim);
      const after = await this.changeBooking(sessionId, source, claim, ctx, decide);
      if (after !== null && after !== 'unchanged') {
        this.lastBooked.delete(sessionId);
        this.lastBooked.set(sessionId, { session: after, at: Date.now() });
        if (this.lastBooked.size > FILLED_KEPT) this.lastBooked.delete(this.lastBooked.keys().next().value!);
      }
      return after;
    });
  }

  /**
   * The booking's write; when other replicas kept changing the session first until the write gave up (409
   * RECORD_BUSY), a session that meanwhile filled or closed answers that refusal instead: a retry would get it.
   */
  private async changeBooking(
    sessionId: number,
    source: BookingInput['source'],
    claim: IdempotencyClaim | null,
    ctx: HandlerContext,
    decide: (existing: SessionDoc) => Promise<RecordWrite<SessionDoc> | null>,
  ): Promise<SessionDoc | null | 'unchanged'> {
    try {
      // Starting again while the caller waits (less a second for the answer's way back): in a rush, every
      // other replica's write is a place taken, so the booking ends booked or refused as full, not busy.
      const waitUntil = ctx.deadline === undefined ? undefined : ctx.deadline - 1_000;
      return await this.storage.writes.changeSession(sessionId, decide, 'SESSION_NOT_FOUND', waitUntil);
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'RECORD_BUSY')
        await this.refuseEarly(sessionId, source, claim, ctx);
      throw err;
    }
  }

  /**
   * A booking the session as read now already refuses (full of its own bookings, closed, past) is refused without
   * waiting its turn behind the session's writes: the 8 a.m. rush's many refusals. The refusal stands at this read;
   * a retry of a booking that was made takes its turn and is answered with it.
   */
  async refuseEarly(
    sessionId: number,
    source: BookingInput['source'],
    claim: IdempotencyClaim | null,
    ctx: HandlerContext,
  ): Promise<void> {
    const session = foundInBranch(ctx, await this.storage.queries.findVisibleShared(sessionId), 'SESSION_NOT_FOUND');
    await this.refuseFrom(session, source, claim);
  }

  /** Refuses a booking the session as read refuses (its own bookings only), unless it is this key's retry. */
  private async refuseFrom(
    session: SessionDoc,
    source: BookingInput['source'],
    claim: IdempotencyClaim | null,
  ): Promise<void> {
    if (claim && session.appointments?.some((a) => a.idempotency_key === claim.key)) return;
    try {
      nextNumber(session, source, this.clock.today(), 0);
    } catch (refusal) {
      if (claim) await this.storage.bookingKeys.bind(claim, session.id);
      throw refusal;
    }
  }
}
