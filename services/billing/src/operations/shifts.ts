/**
 * A cashier's shift: opened at a branch with a float, read with
 * its drawer, cash dropped to the safe or paid out (petty cash) with a
 * reason. Closing and handing over are shift-close.ts. Shifts are written
 * only with CASH_SHIFTS=on; they can always be read.
 */
import { SHIFT_MESSAGES, success, type ServiceReply, type ServiceRequest } from '@clinic/contracts';
import {
  callerOf,
  fail,
  foundInBranch,
  pathId,
  requireBranch,
  type ClinicClock,
  type HandlerContext,
} from '@clinic/service-kit';
import { newEventId } from '@clinic/service-kit/storage';
import { assertMayUse, openingShift, shiftFigures, type Shift, type ShiftFigures } from '../domain/shift';
import { parseMovement, parseOpenShift, parseShiftsQuery } from '../domain/shift-input';
import type { BillingReferences } from '../references';
import type { BillStorage, ShiftContext } from '../storage';
import type { ShiftDoc } from '../domain/shift';
import { namedIn, shiftView } from '../views/shift-view';
import type { CashOffice } from './cash-office';

/** A shift with nothing moved yet: its figures are its float's. */
export const NOTHING_MOVED = (floatCents: number): ShiftFigures => shiftFigures(floatCents, []);

export class ShiftOperations {
  constructor(
    readonly storage: BillStorage,
    readonly refs: BillingReferences,
    readonly office: CashOffice,
    readonly clock: ClinicClock,
  ) {}

  /** POST /shifts: the caller's own shift, at a live branch, on the clinic's today. */
  async openShift(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const input = parseOpenShift(request.body);
    requireBranch(ctx, input.store_id);
    this.requireShifts();
    if ((await this.refs.branch(input.store_id))?.status !== 'active') throw fail('STORE_NOT_FOUND');
    const caller = callerOf(ctx);
    const staff = (await this.office.staffOf(caller, true))!;
    const by = { sub: caller.sub, role: caller.role };
    const shift = openingShift({
      store_id: input.store_id,
      day: this.clock.today(),
      user_id: staff.user_id,
      opened_by: by,
      opened_at: new Date(),
      float_cents: input.float_cents,
      float_denominations: input.float_denominations,
      note: input.note,
      from_shift_id: null,
    });
    const doc = await this.storage.cashOffice.shifts.open(shift, await this.context(ctx, [staff.user_id]));
    return success(201, { message: SHIFT_MESSAGES.opened, shift: await this.view(doc) });
  }

  /** GET /shifts: a branch's shifts opened on a day. */
  async shifts(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const { store_id, date, status } = parseShiftsQuery(request.query);
    requireBranch(ctx, store_id);
    const docs = (await this.storage.cashOffice.shifts.ofDay(store_id, date)).filter(
      (doc) => status === undefined || doc.status === status,
    );
    const names = await this.refs.userNames(docs.flatMap(namedIn));
    const figures = await Promise.all(docs.map((doc) => this.figures(doc)));
    return success(200, { shifts: docs.map((doc, i) => shiftView(doc, figures[i]!, names, this.clock)) });
  }

  /** GET /shifts/{id}. */
  async shift(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    return success(200, { shift: await this.view(await this.found(request, ctx)) });
  }

  /** POST /shifts/{id}/drops: cash to the safe. */
  dropCash(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    return this.move(request, ctx, 'drop');
  }

  /** POST /shifts/{id}/payouts: petty cash paid out, with a reason. */
  payOutCash(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    return this.move(request, ctx, 'payout');
  }

  private async move(request: ServiceRequest, ctx: HandlerContext, kind: 'drop' | 'payout'): Promise<ServiceReply> {
    const id = pathId(request, 'shift_id', 'SHIFT_NOT_FOUND');
    const { amount_cents, reason } = parseMovement(request.body, kind === 'payout');
    this.requireShifts();
    const caller = callerOf(ctx);
    const staff = (await this.office.staffOf(caller, true))!;
    const shift = await this.found(request, ctx);
    const movement = {
      id: newEventId(),
      kind,
      amount_cents,
      reason,
      at: new Date(),
      by: { sub: caller.sub, role: caller.role },
    };
    const figures = await this.figures(shift);
    const moved: ShiftFigures = {
      ...figures,
      [kind === 'drop' ? 'dropped' : 'paid_out']: figures[kind === 'drop' ? 'dropped' : 'paid_out'] + amount_cents,
      expected: figures.expected - amount_cents,
    };
    const after = await this.storage.cashOffice.cash.move(
      id,
      movement,
      this.clock.today(),
      await this.context(ctx, namedIn(shift), moved),
      (found) => {
        foundInBranch(ctx, found, 'SHIFT_NOT_FOUND');
        assertMayUse(found, staff.user_id, caller.role);
      },
    );
    return success(201, { message: SHIFT_MESSAGES.moved, shift: await this.view(after) });
  }

  /** 409 unless the clinic uses shifts. */
  requireShifts(): void {
    if (!this.office.shiftsOn) throw fail('SHIFTS_OFF');
  }

  /** The shift a path names, within the caller's branches (404 otherwise). */
  async found(request: ServiceRequest, ctx: HandlerContext): Promise<ShiftDoc> {
    const id = pathId(request, 'shift_id', 'SHIFT_NOT_FOUND');
    return foundInBranch(ctx, await this.storage.cashOffice.shifts.find(id), 'SHIFT_NOT_FOUND');
  }

  /** What the shift's drawer ledger holds. */
  async figures(shift: Shift): Promise<ShiftFigures> {
    return shiftFigures(shift.float_cents, await this.storage.cashOffice.cash.sums(shift.id));
  }

  async view(shift: ShiftDoc) {
    const [names, figures] = await Promise.all([this.refs.userNames(namedIn(shift)), this.figures(shift)]);
    return shiftView(shift, figures, names, this.clock);
  }

  /** How a write's events show the shift: with its figures as known before the write (`figures`). */
  async context(ctx: HandlerContext, named: number[], figures?: ShiftFigures): Promise<ShiftContext> {
    const names = await this.refs.userNames(named);
    const caller = callerOf(ctx);
    return {
      actor: { sub: caller.sub, role: caller.role },
      correlationId: ctx.correlationId,
      view: (doc) => shiftView(doc, figures ?? NOTHING_MOVED(doc.float_cents), names, this.clock),
    };
  }
}
