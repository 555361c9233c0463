/**
 * A branch's day closed, read and reopened. Closing marks the day
 * so that every write of it is refused from then on, waits for the writes
 * that read it open before the mark (storage/day-closings.ts), then counts
 * the day's ledger: expected against counted cash per user.
 */
import { DAY_MESSAGES, success, type ServiceReply, type ServiceRequest } from '@clinic/contracts';
import { badRequest, callerOf, fail, requireBranch, type ClinicClock, type HandlerContext } from '@clinic/service-kit';
import { cashCounts } from '../domain/day-end-report';
import { parseDayEndQuery } from '../domain/filters';
import { parseDayClose, parseReopen } from '../domain/money-input';
import type { BillStorage } from '../storage';
import type { ClosingDoc } from '../domain/day-closing';
import type { BillingReferences } from '../references';
import { closingUsers, closingView, openDayView } from '../views/closing-view';
import type { CashOffice } from './cash-office';
import { DayCounters } from './day-counts';

/** How long a close waits for the writes of its day still in flight before it answers "retry". */
const SETTLE_WAIT_MS = 3_000;

export class DayCloseOperations {
  constructor(
    private readonly storage: BillStorage,
    private readonly refs: BillingReferences,
    private readonly clock: ClinicClock,
    private readonly office: CashOffice,
  ) {}

  /** POST /lab_bills/day_close (admin). */
  async close(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const actor = callerOf(ctx);
    const { store_id, date, counted } = parseDayClose(request.body);
    requireBranch(ctx, store_id);
    const today = this.clock.today();
    if (date > today) throw badRequest(DAY_MESSAGES.inFuture(today), 'date');
    if (!(await this.refs.branch(store_id))) throw fail('STORE_NOT_FOUND');
    const counts = await this.counters.known(store_id, date, counted);
    const { closings } = this.storage;
    const marked = await closings.markClosing(store_id, date);
    try {
      if (!(await closings.settled(store_id, date, SETTLE_WAIT_MS)))
        throw fail('DAY_STILL_RECORDING', DAY_MESSAGES.stillRecording(date, store_id));
      const cash = this.office.shiftsOn
        ? await this.counters.fromShifts(store_id, date)
        : cashCounts(await this.storage.ledger.drawer(store_id, date), counts);
      const names = await this.refs.userNamesIfReadable(
        cash.map((c) => c.user_id),
        ctx.log,
      );
      const closing = await closings.close(marked, cash, { actor, correlationId: ctx.correlationId }, (doc) =>
        this.view(doc, names),
      );
      return success(201, { message: DAY_MESSAGES.closedNow, closing: this.view(closing, names) });
    } catch (err) {
      // Given up: the day takes writes again (unless the closing landed after all, or the day changed since).
      await closings.unmark(marked).catch((unmarkErr: unknown) => {
        ctx.log.warn({ err: unmarkErr, store_id, date }, 'day left closing after a failed close');
      });
      throw err;
    }
  }

  private get counters() {
    return new DayCounters(this.storage, this.refs, this.office);
  }

  /** GET /lab_bills/day_close: a day never closed reads `open`, without figures or history. */
  async get(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const { store_id, date } = parseDayEndQuery(request.query);
    requireBranch(ctx, store_id);
    const found = await this.storage.closings.find(store_id, date);
    if (!found) return success(200, { closing: openDayView(store_id, date) });
    return success(200, { closing: this.view(found, await this.namesOf(found)) });
  }

  /** DELETE /lab_bills/day_close (admin), with the reason in the day's history. */
  async reopen(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const actor = callerOf(ctx);
    const { store_id, date } = parseDayEndQuery(request.query);
    const reason = parseReopen(request.body);
    requireBranch(ctx, store_id);
    const found = await this.storage.closings.find(store_id, date);
    const names = found ? await this.namesOf(found) : new Map<number, string>();
    const reopened = await this.storage.closings.reopen(
      store_id,
      date,
      reason,
      { actor, correlationId: ctx.correlationId },
      (doc) => this.view(doc, names),
    );
    return success(200, { message: DAY_MESSAGES.reopened, closing: this.view(reopened, names) });
  }

  private namesOf(doc: ClosingDoc): Promise<Map<number, string>> {
    return this.refs.userNames(closingUsers(doc));
  }

  private view(doc: ClosingDoc, names: Map<number, string>): Record<string, unknown> {
    return closingView(doc, names, this.clock);
  }
}
