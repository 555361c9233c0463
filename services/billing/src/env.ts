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
} as const satisfies EnvProperties;
