/**
 * A shift's end: closed with the count of its drawer, or counted
 * and handed over to the next cashier, who accepts the counted amount as
 * their own shift's float; then a manager's sign-off. Counting follows a day
 * close's protocol: the shift is marked `closing` (no money move takes it
 * from then on), the close waits until the moves that read it open have
 * landed and their ledger entries are stored, then counts its ledger.
 */
import {
  EventSubjects,
  REQUEST_MESSAGES,
  SHIFT_MESSAGES,
  success,
  type ServiceReply,
  type ServiceRequest,
} from '@clinic/contracts';
import { badRequest, callerOf, fail, ServiceError, type HandlerContext } from '@clinic/service-kit';
import { assertMayUse, openingShift, type Denomination, type ShiftFigures } from '../domain/shift';
import { parseAccept, parseCount, parseHandover, parseSignOff } from '../domain/shift-input';
import type { ShiftWrite } from '../storage';
import type { ShiftDoc } from '../domain/shift';
import { namedIn } from '../views/shift-view';
import type { ShiftOperations } from './shifts';

/** How long a close waits for the shift's money moves still in flight before it answers "retry". */
const SETTLE_WAIT_MS = 3_000;

/** The count of a drawer, as a close or a handover takes it. */
interface Count {
  counted_cents: number;
  denominations: Denomination[] | null;
  note: string | null;
}

export class ShiftCloseOperations {
  constructor(private readonly shifts: ShiftOperations) {}

  private get store() {
    return this.shifts.storage.cashOffice.shifts;
  }

  /** POST /shifts/{id}/close: over or short against what the drawer should hold. */
  async closeShift(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const count = parseCount(request.body);
    const closed = await this.counted(request, ctx, count, () => ({
      set: { status: 'closed', closed_at: new Date() },
      subject: EventSubjects.shiftClosed,
    }));
    return success(200, { message: SHIFT_MESSAGES.closed, shift: await this.shifts.view(closed) });
  }

  /** POST /shifts/{id}/handover: counted, waiting for the next cashier to accept it. */
  async handOverShift(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const { to_user_id, ...count } = parseHandover(request.body);
    const receiver = (await this.shifts.refs.userNames([to_user_id])).has(to_user_id);
    if (!receiver) throw badRequest(SHIFT_MESSAGES.unknownCounter('to_user_id'), 'to_user_id');
    const caller = callerOf(ctx);
    const counted = await this.counted(request, ctx, count, (marked) => {
      if (marked.user_id === to_user_id) throw badRequest(SHIFT_MESSAGES.selfHandover, 'to_user_id');
      return {
        set: {
          status: 'handing_over',
          handover: {
            to_user_id,
            at: new Date(),
            by: { sub: caller.sub, role: caller.role },
            to_shift_id: null,
            accepted_at: null,
          },
        },
        subject: EventSubjects.shiftHandingOver,
      };
    });
    return success(200, { message: SHIFT_MESSAGES.handingOver, shift: await this.shifts.view(counted) });
  }

  /**
   * POST /shifts/{id}/accept (the receiving cashier): the shift handed over,
   * then the receiver's own opened with the counted amount as its float. A
   * retry after a failure between the two opens the receiver's shift.
   */
  async acceptHandover(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const amount = parseAccept(request.body);
    this.shifts.requireShifts();
    const caller = callerOf(ctx);
    const staff = (await this.shifts.office.staffOf(caller, true))!;
    for (;;) {
      const found = await this.shifts.found(request, ctx);
      const { handover, count } = found;
      if (!handover || !count || !['handing_over', 'handed_over'].includes(found.status))
        throw fail('HANDOVER_REFUSED', SHIFT_MESSAGES.notHandingOver(found.id));
      if (handover.to_user_id !== staff.user_id)
        throw fail('HANDOVER_REFUSED', SHIFT_MESSAGES.notTheReceiver(found.id));
      if (amount !== count.counted_cents)
        throw fail('HANDOVER_REFUSED', SHIFT_MESSAGES.handoverMismatch(count.counted_cents), 'amount');
      if (found.status === 'handed_over' && handover.to_shift_id !== null) {
        const next = await this.store.find(handover.to_shift_id);
        return this.accepted(next ?? (await this.openFrom(ctx, found, handover.to_shift_id)), found);
      }
      const live = await this.store.liveOf(found.store_id, staff.user_id);
      if (live) throw fail('SHIFT_ALREADY_OPEN', SHIFT_MESSAGES.alreadyOpen(found.store_id, live.id));
      await this.shifts.storage.closings.assertOpen(found.store_id, [this.shifts.clock.today()]);
      const nextId = await this.store.newId();
      const now = new Date();
      const handed = await this.store.write(
        found,
        {
          set: {
            status: 'handed_over',
            handover: { ...handover, to_shift_id: nextId, accepted_at: now },
            closed_at: now,
          },
          subject: EventSubjects.shiftHandedOver,
        },
        await this.shifts.context(ctx, namedIn(found), await this.shifts.figures(found)),
      );
      if (handed) return this.accepted(await this.openFrom(ctx, handed, nextId), handed);
    }
  }

  /** POST /shifts/{id}/sign_off (admin): a manager's sign-off of the count, once. */
  async signOffShift(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const note = parseSignOff(request.body);
    const caller = callerOf(ctx);
    for (;;) {
      const found = await this.shifts.found(request, ctx);
      if (!found.count || !['closed', 'handed_over', 'handing_over'].includes(found.status))
        throw fail('SHIFT_SIGN_OFF_REFUSED', SHIFT_MESSAGES.notClosed(found.id));
      if (found.sign_off) throw fail('SHIFT_SIGN_OFF_REFUSED', SHIFT_MESSAGES.signedOffAlready(found.id));
      const sign_off = { by: { sub: caller.sub, role: caller.role }, at: new Date(), note };
      const after = await this.store.write(
        found,
        { set: { sign_off }, subject: EventSubjects.shiftSignedOff },
        await this.shifts.context(ctx, namedIn(found), await this.shifts.figures(found)),
      );
      if (after) return success(200, { message: SHIFT_MESSAGES.signedOff, shift: await this.shifts.view(after) });
    }
  }

  /** The receiver's shift, opened with the amount counted at the handover as its float. */
  private async openFrom(ctx: HandlerContext, from: ShiftDoc, id: number): Promise<ShiftDoc> {
    const caller = callerOf(ctx);
    const count = from.count!;
    return this.store.open(
      openingShift({
        store_id: from.store_id,
        day: this.shifts.clock.today(),
        user_id: from.handover!.to_user_id,
        opened_by: { sub: caller.sub, role: caller.role },
        opened_at: new Date(),
        float_cents: count.counted_cents,
        float_denominations: count.denominations,
        note: null,
        from_shift_id: from.id,
      }),
      await this.shifts.context(ctx, [from.handover!.to_user_id]),
      id,
    );
  }

  private async accepted(next: ShiftDoc, from: ShiftDoc): Promise<ServiceReply> {
    const [shift, previous] = await Promise.all([this.shifts.view(next), this.shifts.view(from)]);
    return success(201, { message: SHIFT_MESSAGES.accepted, shift, from: previous });
  }

  /**
   * Marks the shift, waits for its money in flight, counts its ledger and
   * writes what `change` says with the count; the mark is taken back when it
   * gives up (the shift takes money again).
   */
  private async counted(
    request: ServiceRequest,
    ctx: HandlerContext,
    input: Count,
    change: (marked: ShiftDoc) => Omit<ShiftWrite, 'set'> & { set: Partial<ShiftDoc> },
  ): Promise<ShiftDoc> {
    this.shifts.requireShifts();
    const caller = callerOf(ctx);
    const staff = (await this.shifts.office.staffOf(caller, true))!;
    let marked: ShiftDoc | null = null;
    while (!marked) {
      const found = await this.shifts.found(request, ctx);
      assertMayUse(found, staff.user_id, caller.role);
      if (found.status !== 'open' && found.status !== 'closing')
        throw fail('SHIFT_NOT_OPEN', SHIFT_MESSAGES.notOpen(found.id, found.status));
      marked = await this.store.mark(found);
    }
    try {
      if (!(await this.store.settled(marked.id, SETTLE_WAIT_MS)))
        throw fail('SHIFT_STILL_RECORDING', SHIFT_MESSAGES.stillRecording(marked.id));
      const figures: ShiftFigures = await this.shifts.figures(marked);
      const planned = change(marked);
      const count = {
        counted_cents: input.counted_cents,
        denominations: input.denominations,
        expected_cents: figures.expected,
        at: new Date(),
        by: { sub: caller.sub, role: caller.role },
        note: input.note,
      };
      const after = await this.store.write(
        marked,
        { ...planned, set: { ...planned.set, count, holds: [] } },
        await this.shifts.context(ctx, [...namedIn(marked), ...namedIn({ ...marked, ...planned.set })], figures),
      );
      if (!after) throw new ServiceError(409, REQUEST_MESSAGES.recordBusy, 'RECORD_BUSY');
      return after;
    } catch (err) {
      await this.store.unmark(marked).catch((unmarkErr: unknown) => {
        ctx.log.warn({ err: unmarkErr, shift_id: marked.id }, 'shift left closing after a failed close');
      });
      throw err;
    }
  }
}
