/** A session's settlement: the doctor's payout in force, and the ones reversed. */
import type { Caller, PaymentMethod } from '@clinic/contracts';
import type { Cents } from '@clinic/service-kit';
import type { DrawerRef } from './drawer';
import type { SettlementLine } from './settlement-rules';

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
