/** How a charge is stored, and how the API, the events and the history show it. */
import type { Caller } from '@clinic/contracts';
import { fromCents, type ClinicClock } from '@clinic/service-kit';
import type { ChargeFields } from '../rules';

export const CHARGES = 'charges';
/** Charges' audit trail: one entry per create, update and delete, never changed. */
export const CHARGE_HISTORY = 'charge_history';
/** The id counter of charges. */
export const CHARGE_COUNTER = 'charges';

export interface ChargeDoc extends ChargeFields {
  _id: string;
  id: number;
  store_id: number;
  name_key: string;
  /**
   * 0 while the charge is live, its id once deleted. The unique index on
   * (store_id, name_key, live_key) therefore holds among live charges only,
   * without a partial index (FerretDB v1 has none).
   */
  live_key: number;
  is_deleted: boolean;
  created_by: Caller['sub'];
  updated_by: Caller['sub'] | null;
  created_at: Date;
  updated_at: Date | null;
  _event_ids: string[];
}

export interface ChargeView {
  id: number;
  charge_name: string;
  charge_type: string;
  amount: number;
  status: string;
  notes: string | null;
  store_id: number;
  created_by: Caller['sub'];
  updated_by: Caller['sub'] | null;
  created_at: string | null;
  updated_at: string | null;
}

/** What a charge's history compares between before and after a change. */
export const AUDITED_FIELDS = ['charge_name', 'charge_type', 'amount', 'status', 'notes', 'store_id'] as const;

/** The cache scope of one branch's charges: every write to the branch changes it. */
export const storeScope = (storeId: number) => `charges:store:${storeId}`;
/** What a read of one charge depends on. */
export const chargeScope = (id: number) => `charges:one:${id}`;

/** The charge as the API and its events show it. */
export function chargeView(doc: ChargeDoc, clock: ClinicClock): ChargeView {
  return {
    id: doc.id,
    charge_name: doc.charge_name,
    charge_type: doc.charge_type,
    amount: fromCents(doc.amount_cents),
    status: doc.status,
    notes: doc.notes,
    store_id: doc.store_id,
    created_by: doc.created_by,
    updated_by: doc.updated_by,
    created_at: clock.timestamp(doc.created_at),
    updated_at: clock.timestamp(doc.updated_at),
  };
}
