import { BillingSubjects, CatalogueSubjects, SessionsSubjects } from './subjects';

export const STAFF_ROLES = ['admin', 'receptionist', 'cashier'] as const;
export const ADMIN_ONLY = ['admin'] as const;
/** Who may give money back (the service's REFUND_ROLES narrows it). */
export const REFUND_ROLES = ['admin', 'cashier'] as const;

/**
 * Who may call an operation. Enforced by the gateway for HTTP and again by the
 * service itself, since other hospital services call it over NATS directly.
 */
export type Access = { kind: 'public' } | { kind: 'authenticated' } | { kind: 'roles'; roles: readonly string[] };

const publicAccess: Access = { kind: 'public' };
const authenticated: Access = { kind: 'authenticated' };
const staff: Access = { kind: 'roles', roles: STAFF_ROLES };
const admin: Access = { kind: 'roles', roles: ADMIN_ONLY };
const refunders: Access = { kind: 'roles', roles: REFUND_ROLES };

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
  [BillingSubjects.refundSlip]: staff,
  [BillingSubjects.cancellationSlip]: staff,
  [BillingSubjects.export]: staff,
  [BillingSubjects.ledgerExport]: staff,
  [BillingSubjects.pay]: staff,
  [BillingSubjects.refund]: refunders,
  [BillingSubjects.payments]: staff,
  [BillingSubjects.closeDay]: admin,
  [BillingSubjects.dayClosing]: staff,
  [BillingSubjects.reopenDay]: admin,
  [BillingSubjects.appointmentPay]: staff,
  [BillingSubjects.appointmentRefund]: refunders,
  [BillingSubjects.appointmentPayments]: staff,
  // Refunds what the appointment holds: a caller outside REFUND_ROLES may cancel only one that holds nothing.
  [BillingSubjects.appointmentCancel]: staff,
  [BillingSubjects.appointmentSlip]: staff,
  // Asked by sessions on behalf of its caller, whose token it forwards.
  [BillingSubjects.appointmentBalances]: staff,
  [BillingSubjects.settle]: refunders,
  [BillingSubjects.settlement]: staff,
  [BillingSubjects.reverseSettlement]: admin,
  // The cash office: the operations check that a shift is the caller's own (or the caller an admin).
  [BillingSubjects.openShift]: staff,
  [BillingSubjects.shifts]: staff,
  [BillingSubjects.shift]: staff,
  [BillingSubjects.dropCash]: staff,
  [BillingSubjects.payOutCash]: staff,
  [BillingSubjects.closeShift]: staff,
  [BillingSubjects.signOffShift]: admin,
  [BillingSubjects.handOverShift]: staff,
  [BillingSubjects.acceptHandover]: staff,
  [BillingSubjects.requestApproval]: staff,
  [BillingSubjects.approvals]: staff,
  [BillingSubjects.approval]: staff,
  [BillingSubjects.approve]: admin,
  [BillingSubjects.decline]: admin,
  // Asked by catalogue on behalf of its caller, whose token it forwards.
  [BillingSubjects.useApproval]: staff,
  [BillingSubjects.releaseApproval]: staff,

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
  [SessionsSubjects.complete]: staff,
  [SessionsSubjects.book]: staff,
  [SessionsSubjects.appointments]: staff,
  [SessionsSubjects.appointment]: staff,
  [SessionsSubjects.updateAppointment]: staff,
  // Asked by billing on behalf of its caller, whose token it forwards.
  [SessionsSubjects.cancelAppointment]: staff,
  [SessionsSubjects.channeling]: staff,
};

/** What a deployment sets about access, the same in the gateway and in every service. */
export interface AccessSettings {
  /** BRANCH_SCOPE=required: a token without `store_ids` reaches nothing unless its role is admin. */
  branchScopeRequired: boolean;
  /** SESSION_WRITE_ROLES: the roles that may create, change, delete and auto-create sessions; null: any caller. */
  sessionWriteRoles: readonly string[] | null;
}

/** As the spec has it: every branch without the claim, and sessions written by any authenticated caller. */
export const SPEC_ACCESS: AccessSettings = { branchScopeRequired: false, sessionWriteRoles: null };

/** The subjects SESSION_WRITE_ROLES limits. */
export const SESSION_WRITE_SUBJECTS: readonly string[] = [
  SessionsSubjects.create,
  SessionsSubjects.update,
  SessionsSubjects.delete,
  SessionsSubjects.autoCreate,
];

export function accessOf(subject: string, settings: AccessSettings = SPEC_ACCESS): Access {
  const access = SUBJECT_ACCESS[subject];
  if (!access) throw new Error(`No access rule for subject ${subject}`);
  if (settings.sessionWriteRoles && SESSION_WRITE_SUBJECTS.includes(subject))
    return { kind: 'roles', roles: settings.sessionWriteRoles };
  return access;
}

/** `unscoped`: BRANCH_SCOPE=required, and the token names no branch for a role that needs one. */
export type AccessDecision = 'allowed' | 'unauthenticated' | 'forbidden' | 'unscoped';

/** The role that keeps chain-wide reach without a `store_ids` claim under BRANCH_SCOPE=required. */
export const CHAIN_WIDE_ROLE = 'admin';

export function decideAccess(
  access: Access,
  caller: { role: string; store_ids?: readonly number[] } | null,
  settings: AccessSettings = SPEC_ACCESS,
): AccessDecision {
  if (access.kind === 'public') return 'allowed';
  if (!caller) return 'unauthenticated';
  if (access.kind === 'roles' && !access.roles.includes(caller.role)) return 'forbidden';
  if (settings.branchScopeRequired && caller.store_ids === undefined && caller.role !== CHAIN_WIDE_ROLE)
    return 'unscoped';
  return 'allowed';
}

export const AUTH_MESSAGES = {
  unauthenticated: 'Authentication required.',
  forbidden: 'You do not have permission to perform this action.',
} as const;

/** Branch scope: what a token limited to some branches (its `store_ids`) is told about the others. */
export const BRANCH_MESSAGES = {
  /** A request naming a branch outside the token's. */
  notAllowed: 'Not allowed for this branch.',
  /** BRANCH_SCOPE=required: a token of a role other than admin without `store_ids`. */
  noBranch: 'Not allowed: this token names no branch (store_ids).',
} as const;

/**
 * How each operation keeps to the caller's branches when its token carries
 * `store_ids` (without the claim, every branch is reachable, as before it).
 */
export const BRANCH_SCOPE_RULES = {
  named:
    "names one branch (`store_id`): a branch outside the token's `store_ids` is 403 `Not allowed for this branch.`",
  record:
    "acts on one record by its id: a record of a branch outside the token's `store_ids` is not found (404), as if it did not exist",
  listed: "answers the token's branches only (a `store_id` outside them is 403 `Not allowed for this branch.`)",
  doctor:
    "the doctor's branch decides the session's: a doctor of a branch outside the token's `store_ids` is not found (404), like an unknown doctor",
} as const;

export type BranchScopeRule = keyof typeof BRANCH_SCOPE_RULES;

/** Why a token was refused (401), the same in the gateway and in every service. */
export const TOKEN_MESSAGES = {
  missing: AUTH_MESSAGES.unauthenticated,
  invalid: 'Invalid token.',
  expired: 'Token expired.',
  claims: 'Invalid token: the sub and role claims are required.',
  issuedInFuture: 'Invalid token: issued in the future.',
  iatNotNumber: 'Invalid token: iat must be a number of seconds.',
  storeIds: 'Invalid token: store_ids must be a list of branch ids (positive integers).',
  tooLongLived: 'Invalid token: it expires further ahead than the longest lifetime allowed.',
} as const;
