/** How a bill is stored, and the history entries of its changes (events/ shape its history's fields). */
import { Limits, type BillHistoryAction, type Caller } from '@clinic/contracts';
import type { ClinicClock } from '@clinic/service-kit';
import { fieldChanges, type AuditTrail, type CarriedDoc } from '@clinic/service-kit/storage';
import type { BillPayloads } from '../domain/payloads';
import type { LedgerEntryDoc } from '../domain/ledger-entry';
import type { BillDoc } from '../domain/bill';

export const BILLS = 'bills';
/** Bills' audit trail: one entry per create, update and cancel, never changed. */
export const BILL_HISTORY = 'bill_history';
/** The id counter of bills. */
export const BILL_COUNTER = 'lab_bills';

/** Item ids derive from the bill id: unique because bill ids are, ordered as entered. */
export const ITEM_ID_FACTOR = 1000;
if (Limits.billItemsMax >= ITEM_ID_FACTOR) throw new Error('billItemsMax must stay below ITEM_ID_FACTOR');

/** What a list read needs of a bill. */
export const LIST_PROJECTION = {
  items: 0,
  ledger: 0,
  _event_ids: 0,
  idempotency_key: 0,
  request_hash: 0,
  search_text: 0,
} as const;

/**
 * The history entry of a change, written through the outbox with its event;
 * imported bills (no actor) have none. A change that moved money lists the
 * entries it made (`ledger`); a creation, its prices set apart from the catalogue's.
 */
export function billHistoryEntries(
  payloads: BillPayloads,
  history: AuditTrail,
  clock: ClinicClock,
  before: BillDoc | null,
  after: BillDoc,
  action: BillHistoryAction,
  context: {
    correlationId: string;
    actor: Caller | null;
    reason?: string | null;
    entries?: LedgerEntryDoc[];
    details?: Record<string, unknown>;
  },
): CarriedDoc[] {
  if (!context.actor) return [];
  const afterView = payloads.audited(after, clock);
  const entries = context.entries ?? [];
  return [
    history.record({
      entityId: after.id,
      action,
      actor: context.actor,
      correlationId: context.correlationId,
      changes: fieldChanges(before && payloads.audited(before, clock), afterView, Object.keys(afterView)),
      ...(action === 'cancelled' ? { reason: context.reason ?? null } : {}),
      details: {
        ...context.details,
        ...(entries.length > 0 ? { ledger: entries.map((entry) => payloads.entry(entry, clock)) } : {}),
      },
    }),
  ];
}
