import { BillingSubjects, CatalogueSubjects, SessionsSubjects } from './subjects';

export const STAFF_ROLES = ['admin', 'receptionist', 'cashier'] as const;
export const ADMIN_ONLY = ['admin'] as const;

/**
 * Who may call an operation. Enforced by the gateway for HTTP and again by the
 * service itself, since other hospital services call it over NATS directly.
 */
export type Access = { kind: 'public' } | { kind: 'authenticated' } | { kind: 'roles'; roles: readonly string[] };

const publicAccess: Access = { kind: 'public' };
const authenticated: Access = { kind: 'authenticated' };
const staff: Access = { kind: 'roles', roles: STAFF_ROLES };
const admin: Access = { kind: 'roles', roles: ADMIN_ONLY };

/**
 * Health and reference status carry no patient data and act for no user, so
 * they need no token; the NATS permissions decide who may ask them (the
 * gateway asks health, operators' tools ask both).
 */
export const SUBJECT_ACCESS: Readonly<Record<string, Access>> = {
  [BillingSubjects.health]: publicAccess,
  [BillingSubjects.refStatus]: publicAccess,
  [BillingSubjects.create]: staff,
  [BillingSubjects.list]: staff,
  [BillingSubjects.summary]: staff,
  [BillingSubjects.get]: staff,
  [BillingSubjects.update]: staff,
  [BillingSubjects.cancel]: admin,
  [BillingSubjects.history]: admin,
  [BillingSubjects.dayEnd]: staff,
  [BillingSubjects.receipt]: staff,

  [CatalogueSubjects.health]: publicAccess,
  [CatalogueSubjects.refStatus]: publicAccess,
  [CatalogueSubjects.create]: staff,
  [CatalogueSubjects.list]: staff,
  [CatalogueSubjects.get]: staff,
  [CatalogueSubjects.update]: staff,
  [CatalogueSubjects.delete]: staff,
  [CatalogueSubjects.history]: staff,
  // Asked by billing on behalf of a staff caller; the caller is forwarded.
  [CatalogueSubjects.check]: staff,

  [SessionsSubjects.health]: publicAccess,
  [SessionsSubjects.refStatus]: publicAccess,
  [SessionsSubjects.list]: authenticated,
  [SessionsSubjects.get]: authenticated,
  [SessionsSubjects.create]: authenticated,
  [SessionsSubjects.update]: authenticated,
  [SessionsSubjects.delete]: authenticated,
  [SessionsSubjects.preview]: authenticated,
  [SessionsSubjects.autoCreate]: authenticated,
};

export function accessOf(subject: string): Access {
  const access = SUBJECT_ACCESS[subject];
  if (!access) throw new Error(`No access rule for subject ${subject}`);
  return access;
}

export type AccessDecision = 'allowed' | 'unauthenticated' | 'forbidden';

export function decideAccess(access: Access, caller: { role: string } | null): AccessDecision {
  if (access.kind === 'public') return 'allowed';
  if (!caller) return 'unauthenticated';
  if (access.kind === 'authenticated') return 'allowed';
  return access.roles.includes(caller.role) ? 'allowed' : 'forbidden';
}

export const AUTH_MESSAGES = {
  unauthenticated: 'Authentication required.',
  forbidden: 'You do not have permission to perform this action.',
} as const;

/** Why a token was refused (401), the same in the gateway and in every service. */
export const TOKEN_MESSAGES = {
  missing: AUTH_MESSAGES.unauthenticated,
  invalid: 'Invalid token.',
  expired: 'Token expired.',
  claims: 'Invalid token: the sub and role claims are required.',
  issuedInFuture: 'Invalid token: issued in the future.',
  iatNotNumber: 'Invalid token: iat must be a number of seconds.',
  tooLongLived: 'Invalid token: it expires further ahead than the longest lifetime allowed.',
} as const;
