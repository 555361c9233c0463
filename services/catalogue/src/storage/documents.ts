/** How charges are stored: their collections and cache scopes (the model is domain/charge.ts). */

export const CHARGES = 'charges';
/** Charges' audit trail: one entry per create, update and delete, never changed. */
export const CHARGE_HISTORY = 'charge_history';
/** The id counter of charges. */
export const CHARGE_COUNTER = 'charges';

/** What a charge's history compares between before and after a change. */
export const AUDITED_FIELDS = ['charge_name', 'charge_type', 'amount', 'status', 'notes', 'store_id'] as const;

/** The cache scope of one branch's charges: every write to the branch changes it. */
export const branchScope = (branchId: number) => `charges:store:${branchId}`;
/** What a read of one charge depends on. */
export const chargeScope = (id: number) => `charges:one:${id}`;
