/**
 * The failures each operation can answer, code by code: what its service decides
 * (OPERATION_ERRORS, read from its steps) and what the way it is called brings
 * (a token, a body, an Idempotency-Key, If-Match, a branch it names, the gateway
 * and the rate limit). The OpenAPI document lists exactly these per operation and
 * status, so a generated client's error union holds what can come, and nothing
 * that cannot (createLabBill's 400 never is DOCTOR_NO_BRANCH).
 */
import { ADMIN_ONLY, SESSION_WRITE_SUBJECTS } from './access';
import { ERROR_CODES, type ErrorCode } from './error-codes';
import type { HttpRoute } from './routes';

/** A code answered with its first status, or `CODE:status` for another of its statuses. */
type Answered = ErrorCode | `${ErrorCode}:${number}`;

const VALIDATION_422: Answered = 'VALIDATION_FAILED:422';

/** What each operation's service refuses on its own, beyond what every call of its kind may get (failuresOf). */
/** A money move's drawer: a known staff user's, with CASH_SHIFTS=on an open shift of theirs holding the cash it takes out. */
const MONEY_DRAWER: readonly Answered[] = [
  'STAFF_UNKNOWN',
  'SHIFT_REQUIRED',
  'SHIFT_NOT_FOUND',
  'SHIFT_NOT_OPEN',
  'SHIFT_NOT_YOURS',
  'DRAWER_SHORT',
];

/** A control a manager switched on: an admin's approval, named by `approval_id`, used once. */
const APPROVED: readonly Answered[] = ['APPROVAL_REQUIRED', 'APPROVAL_NOT_FOUND', 'APPROVAL_NOT_USABLE'];

/** A move on a shift: with shifts in use, by a known staff user, on their own open shift (or any, for an admin). */
const OWN_OPEN_SHIFT: readonly Answered[] = [
  'VALIDATION_FAILED',
  'SHIFTS_OFF',
  'STAFF_UNKNOWN',
  'SHIFT_NOT_FOUND',
  'SHIFT_NOT_OPEN',
  'SHIFT_NOT_YOURS',
];

export const OPERATION_ERRORS: Readonly<Record<string, readonly Answered[]>> = {
  createLabBill: [
    'VALIDATION_FAILED',
    'BILL_CHARGES_INVALID',
    'PRICE_OVERRIDE_FORBIDDEN',
    'STORE_NOT_FOUND',
    'PATIENT_NOT_FOUND',
    'BILL_NUMBER_CONFLICT',
    'DAY_CLOSED',
    'CATALOGUE_UNAVAILABLE',
    ...MONEY_DRAWER,
    ...APPROVED,
  ],
  listLabBills: ['VALIDATION_FAILED'],
  getLabBillSummary: ['VALIDATION_FAILED'],
  getLabBillDayEnd: ['VALIDATION_FAILED'],
  closeDay: [
    'VALIDATION_FAILED',
    'STORE_NOT_FOUND',
    'DAY_ALREADY_CLOSED',
    'DAY_STILL_RECORDING',
    'DAY_CHANGED_MEANWHILE',
    'SHIFTS_LIVE',
  ],
  getDayClose: ['VALIDATION_FAILED'],
  reopenDay: ['VALIDATION_FAILED', 'DAY_NOT_CLOSED', 'DAY_CHANGED_MEANWHILE'],
  exportLabBills: ['VALIDATION_FAILED'],
  getLabBill: ['BILL_NOT_FOUND'],
  updateLabBill: [
    'VALIDATION_FAILED',
    'BILL_NOT_FOUND',
    'BILL_CANCELLED',
    'DAY_CLOSED',
    'RECORD_BUSY',
    ...MONEY_DRAWER,
  ],
  cancelLabBill: [
    'VALIDATION_FAILED',
    'BILL_NOT_FOUND',
    'BILL_ALREADY_CANCELLED',
    'DAY_CLOSED',
    'RECORD_BUSY',
    ...MONEY_DRAWER,
  ],
  getLabBillHistory: ['VALIDATION_FAILED', 'BILL_NOT_FOUND'],
  getLabBillReceipt: ['VALIDATION_FAILED', 'BILL_NOT_FOUND', 'RECORD_BUSY'],
  getLabBillRefundSlip: ['VALIDATION_FAILED', 'BILL_NOT_FOUND', 'REFUND_NOT_FOUND', 'RECORD_BUSY'],
  getLabBillCancellationSlip: ['VALIDATION_FAILED', 'BILL_NOT_FOUND', 'BILL_NOT_CANCELLED', 'RECORD_BUSY'],
  exportLedger: ['VALIDATION_FAILED'],
  recordLabBillPayment: [
    'VALIDATION_FAILED',
    'BILL_NOT_FOUND',
    'LEDGER_FULL',
    'DAY_CLOSED',
    'RECORD_BUSY',
    ...MONEY_DRAWER,
  ],
  listLabBillPayments: ['BILL_NOT_FOUND'],
  refundLabBill: [
    'VALIDATION_FAILED',
    'BILL_NOT_FOUND',
    'LEDGER_FULL',
    'DAY_CLOSED',
    'RECORD_BUSY',
    ...MONEY_DRAWER,
    ...APPROVED,
  ],
  listHospitalCharges: ['VALIDATION_FAILED'],
  createHospitalCharge: ['VALIDATION_FAILED', 'CHARGE_NAME_TAKEN', 'APPROVALS_UNAVAILABLE', ...APPROVED],
  getHospitalCharge: ['CHARGE_NOT_FOUND'],
  updateHospitalCharge: [
    'VALIDATION_FAILED',
    'CHARGE_NOT_FOUND',
    'CHARGE_NAME_TAKEN',
    'CHARGE_UNCHANGED',
    'RECORD_BUSY',
    'APPROVALS_UNAVAILABLE',
    ...APPROVED,
  ],
  deleteHospitalCharge: ['VALIDATION_FAILED', 'CHARGE_NOT_FOUND', 'RECORD_BUSY', 'APPROVALS_UNAVAILABLE', ...APPROVED],
  getHospitalChargeHistory: ['VALIDATION_FAILED', 'CHARGE_NOT_FOUND'],
  // The session routes refuse a field with 422, as the spec has it; a body that is no object at all with 400.
  listSessions: [VALIDATION_422],
  getSession: ['SESSION_NOT_FOUND'],
  addSession: ['VALIDATION_FAILED', VALIDATION_422, 'DOCTOR_NOT_FOUND', 'DOCTOR_NO_BRANCH', 'SESSION_SLOT_TAKEN'],
  updateSession: [
    'VALIDATION_FAILED',
    VALIDATION_422,
    'SESSION_NOT_FOUND',
    'SESSION_SLOT_TAKEN',
    'SESSION_COMPLETED',
    'RECORD_BUSY',
  ],
  deleteSession: ['SESSION_NOT_FOUND', 'SESSION_HAS_APPOINTMENTS', 'RECORD_BUSY'],
  previewAutoSessions: [VALIDATION_422],
  autoCreateSessions: [VALIDATION_422, 'NO_SCHEDULES'],
  bookAppointment: [
    'VALIDATION_FAILED',
    'FEE_LEVEL_NOT_OFFERED',
    'SESSION_NOT_FOUND',
    'SESSION_FULL',
    'SESSION_CLOSED',
    'SESSION_PAST',
    'DOCTOR_ON_LEAVE',
    'SESSION_ON_HOLIDAY',
    'RECORD_BUSY',
  ],
  listAppointments: ['SESSION_NOT_FOUND'],
  completeSession: ['SESSION_NOT_FOUND', 'SESSION_CLOSED', 'RECORD_BUSY'],
  settleSession: [
    'VALIDATION_FAILED',
    'SESSION_NOT_FOUND',
    'SESSION_NOT_COMPLETED',
    'SESSION_SETTLED',
    'DAY_CLOSED',
    'CHANNELING_UNAVAILABLE',
    ...MONEY_DRAWER,
  ],
  getSettlement: ['VALIDATION_FAILED', 'SESSION_NOT_FOUND', 'SETTLEMENT_NOT_FOUND', 'CHANNELING_UNAVAILABLE'],
  reverseSettlement: [
    'VALIDATION_FAILED',
    'SESSION_NOT_FOUND',
    'SETTLEMENT_NOT_FOUND',
    'DAY_CLOSED',
    'CHANNELING_UNAVAILABLE',
    ...MONEY_DRAWER,
  ],
  getAppointment: ['APPOINTMENT_NOT_FOUND'],
  updateAppointment: [
    'VALIDATION_FAILED',
    'APPOINTMENT_NOT_FOUND',
    'APPOINTMENT_MOVE_REFUSED',
    'SESSION_CLOSED',
    'RECORD_BUSY',
  ],
  cancelAppointment: [
    'VALIDATION_FAILED',
    'APPOINTMENT_NOT_FOUND',
    'APPOINTMENT_MOVE_REFUSED',
    'SESSION_SETTLED',
    'DAY_CLOSED',
    'CHANNELING_UNAVAILABLE',
    ...MONEY_DRAWER,
  ],
  recordAppointmentPayment: [
    'VALIDATION_FAILED',
    'APPOINTMENT_NOT_FOUND',
    'APPOINTMENT_MOVE_REFUSED',
    'LEDGER_FULL',
    'DAY_CLOSED',
    'CHANNELING_UNAVAILABLE',
    ...MONEY_DRAWER,
  ],
  listAppointmentPayments: ['APPOINTMENT_NOT_FOUND', 'CHANNELING_UNAVAILABLE'],
  refundAppointment: [
    'VALIDATION_FAILED',
    'APPOINTMENT_NOT_FOUND',
    'SESSION_SETTLED',
    'LEDGER_FULL',
    'DAY_CLOSED',
    'CHANNELING_UNAVAILABLE',
    ...MONEY_DRAWER,
  ],
  getAppointmentSlip: ['APPOINTMENT_NOT_FOUND', 'CHANNELING_UNAVAILABLE'],
  // The cash office: shifts and the approvals a clinic's controls ask for.
  openShift: ['VALIDATION_FAILED', 'SHIFTS_OFF', 'STORE_NOT_FOUND', 'STAFF_UNKNOWN', 'SHIFT_ALREADY_OPEN'],
  listShifts: ['VALIDATION_FAILED'],
  getShift: ['SHIFT_NOT_FOUND'],
  dropCash: [...OWN_OPEN_SHIFT, 'DRAWER_SHORT', 'RECORD_BUSY'],
  payOutCash: [...OWN_OPEN_SHIFT, 'DRAWER_SHORT', 'RECORD_BUSY'],
  closeShift: [...OWN_OPEN_SHIFT, 'SHIFT_STILL_RECORDING', 'RECORD_BUSY'],
  signOffShift: ['VALIDATION_FAILED', 'SHIFTS_OFF', 'SHIFT_NOT_FOUND', 'SHIFT_SIGN_OFF_REFUSED', 'RECORD_BUSY'],
  handOverShift: [...OWN_OPEN_SHIFT, 'SHIFT_STILL_RECORDING', 'RECORD_BUSY'],
  acceptHandover: [
    'VALIDATION_FAILED',
    'SHIFTS_OFF',
    'STAFF_UNKNOWN',
    'SHIFT_NOT_FOUND',
    'HANDOVER_REFUSED',
    'SHIFT_ALREADY_OPEN',
    'RECORD_BUSY',
  ],
  requestApproval: ['VALIDATION_FAILED'],
  listApprovals: ['VALIDATION_FAILED'],
  getApproval: ['APPROVAL_NOT_FOUND'],
  approveApproval: ['VALIDATION_FAILED', 'APPROVAL_NOT_FOUND', 'APPROVAL_DECIDED'],
  declineApproval: ['VALIDATION_FAILED', 'APPROVAL_NOT_FOUND', 'APPROVAL_DECIDED'],
};

/** What any call may meet: the token, the gateway's parser, the rate limit, a service that fails or does not answer. */
const EVERY_CALL: readonly ErrorCode[] = [
  'MALFORMED_REQUEST',
  'AUTHENTICATION_REQUIRED',
  'TOKEN_EXPIRED',
  'TOKEN_INVALID',
  'RATE_LIMITED',
  'HEADERS_TOO_LARGE',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  'SERVICE_TIMEOUT',
];

/** The codes the way an operation is called brings: its access, its body, its headers, whether it writes. */
function callCodes(route: HttpRoute): ErrorCode[] {
  const adminOnly =
    route.access.kind === 'roles' &&
    route.access.roles.every((role) => (ADMIN_ONLY as readonly string[]).includes(role));
  const limitedRoles = route.access.kind === 'roles' || SESSION_WRITE_SUBJECTS.includes(route.subject);
  const writes = route.method !== 'GET';
  return [
    ...EVERY_CALL,
    // An admin keeps chain-wide reach under BRANCH_SCOPE=required; any other role without branches is refused.
    ...(adminOnly ? [] : (['BRANCH_REQUIRED'] as const)),
    ...(limitedRoles ? (['FORBIDDEN'] as const) : []),
    // A branch the request names (a list's store_id filter too) outside the token's: 403.
    ...(route.branchScope === 'named' || route.branchScope === 'listed' ? (['BRANCH_NOT_ALLOWED'] as const) : []),
    // The gateway reads a body on any method but GET, whether or not the operation takes one.
    ...(writes
      ? (['INVALID_JSON', 'BODY_FORBIDDEN_KEYS', 'BODY_TOO_DEEP', 'BODY_TOO_LARGE', 'SERVICE_BUSY'] as const)
      : []),
    ...(writes ? [] : (['REPLY_TOO_LARGE'] as const)),
    // A path segment over 100 characters: only a route's own parameter can be one and still match it.
    ...(route.param ? (['PATH_TOO_LONG'] as const) : []),
    ...(route.idempotent ? (['IDEMPOTENCY_KEY_INVALID', 'IDEMPOTENCY_KEY_REUSED'] as const) : []),
    ...(route.conditional === 'write' ? (['IF_MATCH_INVALID', 'PRECONDITION_FAILED'] as const) : []),
  ];
}

/** Every failure an operation can answer: its codes by status, in the table's order within a status. */
export function failuresOf(route: HttpRoute): Map<number, ErrorCode[]> {
  const own = OPERATION_ERRORS[route.operationId];
  if (!own) throw new Error(`OPERATION_ERRORS has no entry for ${route.operationId}`);
  const byStatus = new Map<number, Set<ErrorCode>>();
  const add = (code: ErrorCode, status: number) => byStatus.set(status, (byStatus.get(status) ?? new Set()).add(code));
  for (const code of callCodes(route)) add(code, ERROR_CODES[code].status[0]!);
  for (const answered of own) {
    const [code, status] = answered.split(':') as [ErrorCode, string | undefined];
    add(code, status === undefined ? ERROR_CODES[code].status[0]! : Number(status));
  }
  const order = Object.keys(ERROR_CODES) as ErrorCode[];
  return new Map(
    [...byStatus].sort(([a], [b]) => a - b).map(([status, codes]) => [status, order.filter((code) => codes.has(code))]),
  );
}
