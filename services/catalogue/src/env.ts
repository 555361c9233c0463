/** The catalogue's own variables, read with the kit's (service-kit config.ts); docs/configuration.md lists them. */
import type { EnvProperties } from '@clinic/service-kit';

export const CATALOGUE_ENV = {
  APPROVE_CATALOGUE_CHANGES: {
    type: 'string',
    enum: ['true', 'false'],
    default: 'false',
    description:
      "`true`: a cashier's create, change or deletion of a charge needs an admin's approval (APPROVAL_REQUIRED).",
  },
} as const satisfies EnvProperties;
