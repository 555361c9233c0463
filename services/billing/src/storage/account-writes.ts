/**
 * Moves of an appointment's money: a payment, a refund, a
 * cancellation's giving back, each one write of its account through the one
 * write path (RecordWriter) with its events, its drawer entries and its
 * history entry, as a bill's money moves (bill-writes.ts). The first payment
 * opens the account (insertAs); a replica that opened it first wins and the
 * payment is then a change of it. The days money moves on must be open, and
 * a refund is refused once the session is settled (settlements.ts: the
 * refund's entry carries the session's fence, and its guard reads the mark).
 */
import { EventSubjects } from '@clinic/contracts';
import { RecordWriter, type AuditTrail, type EventSpec, type StorageDeps } from '@clinic/service-kit/storage';
import { sharesOfEntries, type EntryShares } from '../domain/fee-shares';
import { withEntries } from '../domain/money-rules';
import type { BillPayloads } from '../domain/payloads';
import { type AccountQueries, APPOINTMENT_ACCOUNTS, newAccount } from './appointment-accounts';
import { feesOf, type AccountDoc, type AccountOpening } from '../domain/appointment-account';
import type { ChangeContext } from './bill-writes';
import { isDuplicateKeyError } from './database-quirks';
import { fenceOf, type DayClosings } from './day-closings';
import { drawerEntry } from './ledger-documents';
import type { LedgerEntryDoc } from '../domain/ledger-entry';
import { ledgerProof } from './money-events';
import { settlementFence, type Settlements } from './settlements';
import type { CashGuard } from '../domain/cash-guard';

/** What a move does: its entries (none: nothing to write), and what its history entry says. */
export interface AccountMove {
  entries: LedgerEntryDoc[];
  action: 'payment' | 'refund' | 'cancelled';
  reason?: string | null;
  /** With shifts on: the checks of the shift whose drawer the money moves in. */
  cash?: CashGuard;
}

/** Decides a move on the account as found, or answers the entries an earlier request with the same key made. */
export type AccountPlan = (existing: AccountDoc) => AccountMove | { replay: LedgerEntryDoc[] };

export interface AccountOutcome {
  doc: AccountDoc;
  entries: LedgerEntryDoc[];
  replayed: boolean;
}

/** How events show an account after a move (appointmentBalanceSchema). */
export type AccountView = (doc: AccountDoc) => Record<string, unknown>;

export class AccountWrites {
  private readonly records: RecordWriter<AccountDoc>;

  constructor(
    private readonly queries: AccountQueries,
    private readonly history: AuditTrail,
    private readonly deps: StorageDeps,
    private readonly closings: DayClosings,
    private readonly settlements: Settlements,
    private readonly payloads: BillPayloads,
  ) {
    this.records = new RecordWriter({
      ...deps,
      find: (id) => queries.findById(id),
      collection: queries.accounts,
      recordKind: 'appointment',
      counter: APPOINTMENT_ACCOUNTS,
      notFound: 'APPOINTMENT_NOT_FOUND',
      // Nothing caches an account: sessions asks for balances when it shows appointments.
      written: async () => undefined,
    });
  }

  /** Moves the appointment's money as `plan` decides; an account is opened from `opening` when it has none. */
  async move(
    opening: AccountOpening,
    context: ChangeContext,
    plan: AccountPlan,
    view: AccountView,
  ): Promise<AccountOutcome> {
    if (!(await this.queries.findById(opening.id))) {
      const fresh = { ...newAccount(opening, new Date()), _event_ids: [] };
      const planned = plan(fresh);
      if ('replay' in planned) return { doc: fresh, entries: planned.replay, replayed: true };
      if (planned.entries.length === 0) return { doc: fresh, entries: [], replayed: false };
      const after = { ...fresh, ...withEntries(fresh, planned.entries) };
      try {
        const { _event_ids: _none, ...doc } = after;
        const stored = await this.records.insertAs(doc, {
          ...this.writeOf(fresh, planned),
          event: this.eventOf(fresh, after, planned, context, view),
        });
        return { doc: stored, entries: planned.entries, replayed: false };
      } catch (err) {
        // Another replica opened it meanwhile: the move is a change of that account.
        if (!isDuplicateKeyError(err)) throw err;
      }
    }
    let outcome: AccountOutcome | undefined;
    const after = await this.records.change(opening.id, (found) => {
      const planned = plan(found);
      if ('replay' in planned || planned.entries.length === 0) {
        outcome = { doc: found, entries: 'replay' in planned ? planned.replay : [], replayed: 'replay' in planned };
        return null;
      }
      outcome = { doc: found, entries: planned.entries, replayed: false };
      return {
        set: { ...withEntries(found, planned.entries), updated_at: new Date() },
        event: (changed) => this.eventOf(found, changed, planned, context, view),
        ...this.writeOf(found, planned),
      };
    });
    if (after && after !== 'unchanged') outcome!.doc = after;
    return outcome!;
  }

  /** The checks right before the write, and its proof (the account holds the first entry, for good). */
  private writeOf(before: AccountDoc, move: AccountMove) {
    const days = [...new Set(move.entries.map((e) => e.day))];
    const refunds = move.entries.some((e) => e.kind !== 'payment');
    return {
      guard: async () => {
        await this.closings.assertOpen(before.store_id, days);
        if (refunds) await this.settlements.assertRefundable(before.session_id);
        await move.cash?.guard();
      },
      proof: ledgerProof(before._id, move.entries, APPOINTMENT_ACCOUNTS),
    };
  }

  /** The first entry's event with the history entry; the others' alongside it. Fenced with the days and, for money given back, the session. */
  private eventOf(
    before: AccountDoc,
    after: AccountDoc,
    move: AccountMove,
    context: ChangeContext,
    view: AccountView,
  ): EventSpec {
    const { clock } = this.deps;
    const shares = sharesOfEntries(feesOf(before), before.ledger, move.entries);
    const history = this.history.record({
      entityId: before.id,
      action: move.action,
      actor: context.actor,
      correlationId: context.correlationId,
      changes: {},
      ...(move.action === 'cancelled' ? { reason: move.reason ?? null } : {}),
      details: { ledger: move.entries.map((entry) => this.payloads.entry(entry, clock)) },
    });
    const [first, ...others] = move.entries.map((entry, i) => this.moneyEvent(entry, shares[i]!, after, context, view));
    const days = [...new Set(move.entries.map((e) => fenceOf(before.store_id, e.day)))];
    const refunds = move.entries.some((e) => e.kind !== 'payment');
    return {
      ...first!,
      records: [...first!.records!, history],
      fences: [...days, ...(refunds ? [settlementFence(before.session_id)] : []), ...(move.cash?.fences ?? [])],
      alongside: others,
    };
  }

  /** An entry's event, under its id, carrying its drawer entry with its shares. */
  private moneyEvent(
    entry: LedgerEntryDoc,
    shares: EntryShares,
    after: AccountDoc,
    context: ChangeContext,
    view: AccountView,
  ): EventSpec {
    const payment = entry.kind === 'payment';
    return {
      subject: payment ? EventSubjects.appointmentPaymentRecorded : EventSubjects.appointmentRefunded,
      eventId: entry.id,
      correlationId: context.correlationId,
      data: { [payment ? 'payment' : 'refund']: this.payloads.entry(entry, this.deps.clock), appointment: view(after) },
      records: [
        drawerEntry(entry, {
          appointment_id: after.id,
          session_id: after.session_id,
          store_id: after.store_id,
          ...shares,
        }),
      ],
    };
  }
}
