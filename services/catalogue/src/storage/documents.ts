/** How a charge is stored (the API's view of it is views.ts). */
import type { Caller } from '@clinic/contracts';
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

/** What a charge's history compares between before and after a change. */
export const AUDITED_FIELDS = ['charge_name', 'charge_type', 'amount', 'status', 'notes', 'store_id'] as const;

/** The cache scope of one branch's charges: every write to the branch changes it. */
export const branchScope = (branchId: number) => `charges:store:${branchId}`;
/** What a read of one charge depends on. */
export const chargeScope = (id: number) => `charges:one:${id}`;
