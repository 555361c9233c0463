/** What a hospital charge's fields may hold, and what the catalogue answers: stated once for the service and its schemas. */
import { Limits } from '../limits';
import { idSchema, moneySchema } from '../schemas/common';
import { either, FIELD_MESSAGES, fieldRule, positiveId } from './common';

export const CHARGE_TYPES = ['General', 'Lab'] as const;
export const CHARGE_STATUSES = ['Active', 'Inactive'] as const;
export type ChargeType = (typeof CHARGE_TYPES)[number];
export type ChargeStatus = (typeof CHARGE_STATUSES)[number];

/** What a charge's history entries record. */
export const CHARGE_HISTORY_ACTIONS = ['created', 'updated', 'deleted'] as const;
export type ChargeHistoryAction = (typeof CHARGE_HISTORY_ACTIONS)[number];

/** Rules of the fields that the service checks one by one, in the spec's order. */
export const CHARGE_FIELDS = {
  store_id: positiveId,
  amount: fieldRule<number>(moneySchema, (field, value) =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0
      ? `${field} must be at most ${Limits.moneyMax}.`
      : `${field} must be a number greater than or equal to 0.`,
  ),
  charge_type: either(CHARGE_TYPES),
  status: either(CHARGE_STATUSES, 'Active'),
  /** Billing's check: the charge ids of one bill. */
  charge_ids: fieldRule<number[]>(
    { type: 'array', minItems: 1, maxItems: Limits.billItemsMax, items: idSchema },
    (field) => `${field} must be a list of 1 to ${Limits.billItemsMax} positive integers.`,
  ),
} as const;

export const CATALOGUE_MESSAGES = {
  body: FIELD_MESSAGES.bodyNotObject,
  notFound: 'Charge not found.',
  duplicate: 'A charge with this name already exists in this store.',
  noChanges: 'No changes were made.',
  created: 'Charge created successfully.',
  updated: 'Charge updated successfully.',
  deleted: 'Charge deleted successfully.',
} as const;
