/**
 * How a session's settlement is stored (issue 42): one document per session
 * settled at least once, keyed by the session's id, holding the settlement
 * in force and the ones reversed (settlements.ts writes them).
 */
import type { Caller, PaymentMethod } from '@clinic/contracts';
import type { Cents } from '@clinic/service-kit';
import type { DrawerRef } from '../domain/drawer';
import type { HoldOwner } from '../domain/shift';
import type { SettlementLine } from '../domain/settlement-rules';

export const SETTLEMENTS = 'settlements';
/** Every settlement and reversal of a session, never changed. */
export const SETTLEMENT_HISTORY = 'settlement_history';

export interface SettlementDoc {
  /** Its event's id, and its payout's drawer entry's. */
  id: string;
  session_id: number;
  store_id: number;
  doctor_id: number;
  doctor_name: string | null;
  session_date: string;
  status: 'paid' | 'reversed';
  amount_cents: Cents;
  method: PaymentMethod;
  /** The clinic's day the payout went out of the payer's drawer. */
  day: string;
  paid_at: Date;
  paid_by: Caller;
  lines: SettlementLine[];
  reversal: { reason: string; at: Date; by: Caller; day: string; drawer?: DrawerRef } | null;
  /** The drawer the payout went out of (absent on settlements from before drawers were named: the payer's). */
  drawer?: DrawerRef;
  idempotency_key?: string;
  request_hash?: string;
}

export interface SessionSettlementDoc {
  _id: string;
  session_id: number;
  store_id: number;
  state: 'open' | 'settling' | 'paid';
  /** Changed by every write: each write names the version it read (compare-and-set). */
  version: number;
  marked_at: Date | null;
  /** The settlement in force (state `paid`). */
  current: SettlementDoc | null;
  /** Earlier settlements, reversed, oldest first. */
  reversed: SettlementDoc[];
  _event_ids: string[];
}

export interface SettlementContext {
  actor: Caller;
  correlationId: string;
}

export const settlementKey = (sessionId: number) => String(sessionId);
/** The session's settlement document, which holds a payout once its write landed (a shift's hold on it). */
export const settlementOwner = (sessionId: number): HoldOwner => ({
  collection: SETTLEMENTS,
  key: settlementKey(sessionId),
  paths: ['current.id', 'reversed.id'],
});
