/** Billing's own variables, read with the kit's (service-kit config.ts); docs/configuration.md lists them. */
import { REFUND_ROLES, STAFF_ROLES } from '@clinic/contracts';
import type { EnvProperties } from '@clinic/service-kit';

export const BILLING_ENV = {
  CANCEL_REASON_REQUIRED: {
    type: 'string',
    enum: ['true', 'false'],
    default: 'false',
    description: '`true` makes a cancellation without a reason a 400.',
  },
  PRICE_OVERRIDE_ROLES: {
    type: 'string',
    default: STAFF_ROLES.join(','),
    description: "Who may bill a charge at another price than the catalogue's (comma-separated roles); others get 403.",
  },
  REFUND_ROLES: {
    type: 'string',
    default: REFUND_ROLES.join(','),
    description: 'Who may refund: some of those two (another value stops the service at start).',
  },
  CASH_SHIFTS: {
    type: 'string',
    enum: ['off', 'on'],
    default: 'off',
    description:
      "`on`: money moves in an open shift's drawer (the caller's, or the one the request names), a cash refund no larger than that drawer's cash, and a day closes once its shifts are closed or handed over.",
  },
  MONEY_NEEDS_STAFF: {
    type: 'string',
    enum: ['true', 'false'],
    default: 'false',
    description:
      "`true`: a token whose subject maps to no staff user (a user record's id, or its `subject`) may read but not move money (always so with `CASH_SHIFTS=on`).",
  },
  APPROVE_PRICE_OVERRIDE: {
    type: 'string',
    enum: ['true', 'false'],
    default: 'false',
    description: "`true`: a unit price other than the catalogue's needs an admin's approval (APPROVAL_REQUIRED).",
  },
  APPROVE_DISCOUNT_ABOVE_PCT: {
    type: 'integer',
    description: "A discount above this percentage of the subtotal needs an admin's approval; unset: none does.",
  },
  APPROVE_BILL_DATE: {
    type: 'string',
    enum: ['true', 'false'],
    default: 'false',
    description: "`true`: a bill dated other than the clinic's today needs an admin's approval.",
  },
  APPROVE_REFUND_TENDER: {
    type: 'string',
    enum: ['true', 'false'],
    default: 'false',
    description: "`true`: a refund in another tender than the money was paid in needs an admin's approval.",
  },
  APPROVE_CASH_SHORT: {
    type: 'string',
    enum: ['true', 'false'],
    default: 'false',
    description: "`true`: a Paid Cash bill whose received_amount is below its grand total needs an admin's approval.",
  },
} as const satisfies EnvProperties;
