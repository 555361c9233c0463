/**
 * NATS subjects. Requests follow `<service>.<resource>.<action>`; each service
 * answers them in a queue group named after the service, so replicas share the load.
 * Event subjects (past tense) are stored on JetStream and never answered.
 */

export const SERVICE_NAMES = ['billing', 'catalogue', 'sessions'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** The service that answers a subject (`catalogue.charge.list`: catalogue); undefined for another's. */
export function serviceOf(subject: string): ServiceName | undefined {
  const name = subject.slice(0, subject.indexOf('.'));
  return (SERVICE_NAMES as readonly string[]).includes(name) ? (name as ServiceName) : undefined;
}

export const BillingSubjects = {
  health: 'billing.health',
  refStatus: 'billing.ref.status',
  create: 'billing.bill.create',
  list: 'billing.bill.list',
  summary: 'billing.bill.summary',
  get: 'billing.bill.get',
  update: 'billing.bill.update',
  cancel: 'billing.bill.cancel',
  history: 'billing.bill.history',
  dayEnd: 'billing.bill.dayend',
  receipt: 'billing.bill.receipt',
  /** Credit notes: a refund's slip, a cancelled bill's slip. */
  refundSlip: 'billing.bill.refundslip',
  cancellationSlip: 'billing.bill.cancelslip',
  export: 'billing.bill.export',
  /** A branch's payments and refunds (the drawer ledger) of a range of days, a page at a time. */
  ledgerExport: 'billing.ledger.export',
  pay: 'billing.bill.pay',
  refund: 'billing.bill.refund',
  payments: 'billing.bill.payments',
  closeDay: 'billing.day.close',
  dayClosing: 'billing.day.closing',
  reopenDay: 'billing.day.reopen',
  /** Channeling: an appointment's fee (its own ledger, the same drawer), its cancellation, its slip. */
  appointmentPay: 'billing.appointment.pay',
  appointmentRefund: 'billing.appointment.refund',
  appointmentPayments: 'billing.appointment.payments',
  appointmentCancel: 'billing.appointment.cancel',
  appointmentSlip: 'billing.appointment.slip',
  /** Asked by sessions for the appointments it shows: their money, by id. */
  appointmentBalances: 'billing.appointment.balances',
  /** A session's settlement: the doctor paid their share. */
  settle: 'billing.settlement.pay',
  settlement: 'billing.settlement.get',
  reverseSettlement: 'billing.settlement.reverse',
  /** The cash office: cashiers' shifts and their drawers. */
  openShift: 'billing.shift.open',
  shifts: 'billing.shift.list',
  shift: 'billing.shift.get',
  dropCash: 'billing.shift.drop',
  payOutCash: 'billing.shift.payout',
  closeShift: 'billing.shift.close',
  signOffShift: 'billing.shift.signoff',
  handOverShift: 'billing.shift.handover',
  acceptHandover: 'billing.shift.accept',
  /** Approvals of what a clinic's controls refuse; catalogue uses and releases them over NATS. */
  requestApproval: 'billing.approval.request',
  approvals: 'billing.approval.list',
  approval: 'billing.approval.get',
  approve: 'billing.approval.approve',
  decline: 'billing.approval.decline',
  useApproval: 'billing.approval.use',
  releaseApproval: 'billing.approval.release',
} as const;

export const CatalogueSubjects = {
  health: 'catalogue.health',
  refStatus: 'catalogue.ref.status',
  create: 'catalogue.charge.create',
  list: 'catalogue.charge.list',
  get: 'catalogue.charge.get',
  update: 'catalogue.charge.update',
  delete: 'catalogue.charge.delete',
  history: 'catalogue.charge.history',
  /** Billing asks which of a set of charge ids cannot be billed in one store. */
  check: 'catalogue.charge.check',
} as const;

export const SessionsSubjects = {
  health: 'sessions.health',
  refStatus: 'sessions.ref.status',
  list: 'sessions.session.list',
  get: 'sessions.session.get',
  create: 'sessions.session.create',
  update: 'sessions.session.update',
  delete: 'sessions.session.delete',
  preview: 'sessions.schedule.preview',
  autoCreate: 'sessions.schedule.autocreate',
  complete: 'sessions.session.complete',
  book: 'sessions.appointment.book',
  appointments: 'sessions.appointment.list',
  appointment: 'sessions.appointment.get',
  updateAppointment: 'sessions.appointment.update',
  /** Asked by billing: cancels an appointment (billing then gives back what it holds). */
  cancelAppointment: 'sessions.appointment.cancel',
  /** Asked by billing: a session and its appointments as stored, without their money (settlement, slip). */
  channeling: 'sessions.session.channeling',
} as const;

export const ServiceSubjects = {
  billing: BillingSubjects,
  catalogue: CatalogueSubjects,
  sessions: SessionsSubjects,
} as const satisfies Record<ServiceName, { health: string; refStatus: string }>;

export const EventSubjects = {
  billCreated: 'billing.bill.created',
  billUpdated: 'billing.bill.updated',
  billCancelled: 'billing.bill.cancelled',
  billPaymentRecorded: 'billing.bill.payment_recorded',
  billRefunded: 'billing.bill.refunded',
  dayClosed: 'billing.day.closed',
  dayReopened: 'billing.day.reopened',
  chargeCreated: 'catalogue.charge.created',
  chargeUpdated: 'catalogue.charge.updated',
  chargeDeleted: 'catalogue.charge.deleted',
  sessionCreated: 'sessions.session.created',
  sessionUpdated: 'sessions.session.updated',
  sessionDeleted: 'sessions.session.deleted',
  sessionCancelled: 'sessions.session.cancelled',
  sessionCompleted: 'sessions.session.completed',
  appointmentBooked: 'sessions.appointment.booked',
  appointmentUpdated: 'sessions.appointment.updated',
  appointmentArrived: 'sessions.appointment.arrived',
  appointmentConsulted: 'sessions.appointment.consulted',
  appointmentAbsent: 'sessions.appointment.absent',
  appointmentCancelled: 'sessions.appointment.cancelled',
  appointmentPaymentRecorded: 'billing.appointment.payment_recorded',
  appointmentRefunded: 'billing.appointment.refunded',
  settlementPaid: 'billing.settlement.paid',
  settlementReversed: 'billing.settlement.reversed',
  shiftOpened: 'billing.shift.opened',
  shiftCashMoved: 'billing.shift.cash_moved',
  shiftClosed: 'billing.shift.closed',
  shiftHandingOver: 'billing.shift.handing_over',
  shiftHandedOver: 'billing.shift.handed_over',
  shiftSignedOff: 'billing.shift.signed_off',
  approvalRequested: 'billing.approval.requested',
  approvalApproved: 'billing.approval.approved',
  approvalDeclined: 'billing.approval.declined',
  approvalUsed: 'billing.approval.used',
  approvalReleased: 'billing.approval.released',
} as const;

export type EventSubject = (typeof EventSubjects)[keyof typeof EventSubjects];

/** Every request subject a service answers (health and ref status included). */
export function requestSubjectsOf(service: ServiceName): string[] {
  return Object.values(ServiceSubjects[service]);
}

/** Every event subject a service publishes. */
export function eventSubjectsOf(service: ServiceName): EventSubject[] {
  return Object.values(EventSubjects).filter((s) => s.startsWith(`${service}.`));
}
