/**
 * A session's settlement: one document per session settled at
 * least once, keyed by the session's id, so that two replicas can never both
 * settle it (the insert of the first is unique, every later write a
 * compare-and-set on its version). Settling marks the session `settling`
 * first; from then on a refund of its appointments is refused (a refund's
 * write reads the mark after its outbox entry, fenced with the session, is
 * stored). The settlement then waits until no such entry is in flight, reads
 * the accounts and writes what it paid: no refund that read the session
 * unsettled lands after the payout was counted. A day close's protocol
 * (day-closings.ts), for one session. A mark whose settlement died is stale
 * after MARK_STALE_MS: refunds go on, and the next settlement marks anew.
 */
import type { Collection, Db } from 'mongodb';
import { CHANNELING_MESSAGES, EventSubjects, REQUEST_MESSAGES, type EventSubject } from '@clinic/contracts';
import { fail, ServiceError } from '@clinic/service-kit';
import { fenceCleared, type AuditTrail, type CarriedDoc, type Outbox } from '@clinic/service-kit/storage';
import { isDuplicateKeyError } from './database-quirks';
import { fenceOf, type DayClosings } from './day-closings';
import { drawerEntry } from './ledger-documents';
import type { CashGuard } from '../domain/cash-guard';
import { writeVersion } from './versioned-write';
import type { DrawerRef } from '../domain/drawer';
import { SETTLEMENTS, settlementKey, type SettlementContext } from './settlement-documents';
import type { SessionSettlementDoc, SettlementDoc } from '../domain/settlement';

/** Longer than a settlement takes (its wait for refunds in flight, 3 s, and its write window). */
export const MARK_STALE_MS = 30_000;

/** What the outbox entry of a refund of the session's appointments carries (EventSpec.fences). */
export const settlementFence = (sessionId: number) => `settlement:${sessionId}`;

function heldBy(doc: SessionSettlementDoc | null, now = Date.now()): boolean {
  if (!doc) return false;
  return doc.state === 'paid' || (doc.state === 'settling' && now - doc.marked_at!.getTime() < MARK_STALE_MS);
}

export class Settlements {
  private readonly settlements: Collection<SessionSettlementDoc>;

  constructor(
    db: Db,
    private readonly outbox: Outbox,
    private readonly closings: DayClosings,
    private readonly history: AuditTrail,
  ) {
    this.settlements = db.collection<SessionSettlementDoc>(SETTLEMENTS);
  }

  find(sessionId: number): Promise<SessionSettlementDoc | null> {
    return this.settlements.findOne({ _id: settlementKey(sessionId) });
  }

  /** 409 when the session is settled or being settled: its appointments give nothing back. */
  async assertRefundable(sessionId: number): Promise<void> {
    if (heldBy(await this.find(sessionId))) throw fail('SESSION_SETTLED', CHANNELING_MESSAGES.settledNoRefund);
  }

  /** Marks the session `settling` (409 when it is settled, or another settlement of it is under way). */
  async mark(sessionId: number, storeId: number): Promise<SessionSettlementDoc> {
    for (;;) {
      const found = await this.find(sessionId);
      if (heldBy(found)) throw fail('SESSION_SETTLED', CHANNELING_MESSAGES.alreadySettled);
      const marked_at = new Date();
      if (!found) {
        const fresh: SessionSettlementDoc = {
          _id: settlementKey(sessionId),
          session_id: sessionId,
          store_id: storeId,
          state: 'settling',
          version: 1,
          marked_at,
          current: null,
          reversed: [],
          _event_ids: [],
        };
        try {
          await this.settlements.insertOne(fresh);
          return fresh;
        } catch (err) {
          if (isDuplicateKeyError(err)) continue;
          throw err;
        }
      }
      const marked = { ...found, state: 'settling' as const, version: found.version + 1, marked_at };
      const result = await this.settlements.updateOne(
        { _id: found._id, version: found.version },
        { $set: { state: 'settling', version: marked.version, marked_at } },
      );
      if (result.matchedCount === 1) return marked;
    }
  }

  /** Takes back the mark of a settlement that gave up (left alone when the session changed since). */
  async unmark(marked: SessionSettlementDoc): Promise<void> {
    await this.settlements.updateOne(
      { _id: marked._id, version: marked.version },
      { $set: { state: 'open', version: marked.version + 1, marked_at: null } },
    );
  }

  /** Whether every refund of the session that read it unsettled has landed, waiting up to `waitMs`. */
  settled(sessionId: number, waitMs: number): Promise<boolean> {
    return fenceCleared(this.outbox, settlementFence(sessionId), waitMs);
  }

  /** Stores the settlement of a marked session: the payout out of the payer's drawer, its event and history. */
  async pay(
    marked: SessionSettlementDoc,
    settlement: SettlementDoc,
    context: SettlementContext,
    view: (doc: SettlementDoc) => Record<string, unknown>,
    cash?: CashGuard,
  ): Promise<SessionSettlementDoc> {
    const payout = this.payout(settlement, 'payout', settlement.day, settlement.paid_at, settlement.drawer);
    return this.write(
      marked,
      { state: 'paid', current: settlement, reversed: marked.reversed },
      {
        eventId: settlement.id,
        subject: EventSubjects.settlementPaid,
        data: { settlement: view(settlement) },
        records: [...payout, this.historyOf(settlement, 'settled', context, view)],
        day: settlement.day,
      },
      context,
      cash,
    );
  }

  /** Reverses the session's settlement: the payout back into the reverser's drawer (404 when none is in force). */
  async reverse(
    sessionId: number,
    reversal: NonNullable<SettlementDoc['reversal']>,
    context: SettlementContext,
    view: (doc: SettlementDoc) => Record<string, unknown>,
    cash?: CashGuard,
  ): Promise<SettlementDoc> {
    for (;;) {
      const found = await this.find(sessionId);
      if (found?.state !== 'paid' || !found.current) throw fail('SETTLEMENT_NOT_FOUND');
      const reversed: SettlementDoc = { ...found.current, status: 'reversed', reversal };
      const payback = this.payout(
        { ...reversed, paid_by: reversal.by },
        'payout_reversal',
        reversal.day,
        reversal.at,
        reversal.drawer,
      );
      try {
        await this.write(
          found,
          { state: 'open', current: null, reversed: [...found.reversed, reversed] },
          {
            subject: EventSubjects.settlementReversed,
            data: { settlement: view(reversed) },
            records: [...payback, this.historyOf(reversed, 'reversed', context, view, reversal.reason)],
            day: reversal.day,
          },
          context,
          cash,
        );
        return reversed;
      } catch (err) {
        // Reversed by someone else meanwhile: read it again (and answer 404).
        if (!(err instanceof ChangedMeanwhile)) throw err;
      }
    }
  }

  /** The drawer entry of a payout or of its reversal; none for a payout of nothing. */
  private payout(
    settlement: SettlementDoc,
    kind: 'payout' | 'payout_reversal',
    day: string,
    at: Date,
    drawer: DrawerRef | undefined,
  ): CarriedDoc[] {
    if (settlement.amount_cents === 0) return [];
    const moved = {
      kind,
      day,
      at,
      by: settlement.paid_by,
      drawer,
      method: settlement.method,
      amount_cents: settlement.amount_cents,
    };
    return [
      drawerEntry(moved, {
        session_id: settlement.session_id,
        store_id: settlement.store_id,
        doctor_cents: settlement.amount_cents,
        hospital_cents: 0,
      }),
    ];
  }

  private historyOf(
    settlement: SettlementDoc,
    action: 'settled' | 'reversed',
    context: SettlementContext,
    view: (doc: SettlementDoc) => Record<string, unknown>,
    reason?: string,
  ): CarriedDoc {
    return this.history.record({
      entityId: settlement.session_id,
      action,
      actor: context.actor,
      correlationId: context.correlationId,
      changes: {},
      ...(reason !== undefined ? { reason } : {}),
      details: { settlement: view(settlement) },
    });
  }

  /** A compare-and-set write of the version found, with its event; the day money moves on must be open. */
  private async write(
    found: SessionSettlementDoc,
    change: Pick<SessionSettlementDoc, 'state' | 'current' | 'reversed'>,
    event: {
      eventId?: string;
      subject: EventSubject;
      data: Record<string, unknown>;
      records: CarriedDoc[];
      day: string;
    },
    context: SettlementContext,
    cash?: CashGuard,
  ): Promise<SessionSettlementDoc> {
    const { day, ...spec } = event;
    const after = await writeVersion<SessionSettlementDoc>(
      this.outbox,
      this.settlements,
      found,
      { ...change, marked_at: null },
      () => ({
        ...spec,
        correlationId: context.correlationId,
        fences: [fenceOf(found.store_id, day), ...(cash?.fences ?? [])],
      }),
      async () => {
        await this.closings.assertOpen(found.store_id, [day]);
        await cash?.guard();
      },
    );
    if (!after) throw new ChangedMeanwhile();
    return after;
  }
}

/** A write of a session's settlement matched nothing: it changed after it was read (its event is dropped at once). */
class ChangedMeanwhile extends ServiceError {
  constructor() {
    super(409, REQUEST_MESSAGES.recordBusy, 'RECORD_BUSY');
  }
}
