/** The routes of the cash office: cashiers' shifts and their drawers, approvals of what controls refuse. */
import type { HttpRoute } from './http-route';
import {
  approvalReplies,
  approvalsQuerySchema,
  decideApprovalBodySchema,
  requestApprovalBodySchema,
} from './schemas/approvals';
import {
  acceptHandoverBodySchema,
  closeShiftBodySchema,
  handoverBodySchema,
  openShiftBodySchema,
  shiftMovementBodySchema,
  shiftReplies,
  shiftsQuerySchema,
  signOffBodySchema,
} from './schemas/shifts';
import { standardFailures } from './schemas/failures';
import { BillingSubjects } from './subjects';

const tag = 'Cash office' as const;
const shiftRoute = (r: Omit<HttpRoute, 'access' | 'tag' | 'branchScope' | 'param'>): Omit<HttpRoute, 'access'> => ({
  ...r,
  tag,
  branchScope: 'record',
  param: 'shift_id',
});
const approvalRoute = (r: Omit<HttpRoute, 'access' | 'tag' | 'branchScope' | 'param'>): Omit<HttpRoute, 'access'> => ({
  ...r,
  tag,
  branchScope: 'record',
  param: 'approval_id',
});

/** Routes without their access, which routes.ts adds from the subject (access.ts). */
export const CASH_OFFICE_ROUTES: ReadonlyArray<Omit<HttpRoute, 'access'>> = [
  {
    operationId: 'openShift',
    method: 'POST',
    url: '/shifts',
    branchScope: 'named',
    subject: BillingSubjects.openShift,
    tag,
    summary:
      "Open the caller's shift at a branch with its opening float (optionally by denomination); with CASH_SHIFTS=on money moves in a shift's drawer",
    body: openShiftBodySchema,
    responses: { 201: shiftReplies.changed, ...standardFailures(409, 413) },
  },
  {
    operationId: 'listShifts',
    method: 'GET',
    url: '/shifts',
    branchScope: 'named',
    subject: BillingSubjects.shifts,
    tag,
    summary: 'The shifts a branch opened on a day, with their drawers',
    querystring: shiftsQuerySchema,
    responses: { 200: shiftReplies.list, ...standardFailures() },
  },
  shiftRoute({
    operationId: 'getShift',
    method: 'GET',
    url: '/shifts/:shift_id',
    subject: BillingSubjects.shift,
    summary: 'One shift: its float, what its drawer took and gave back, its movements, count, handover and sign-off',
    responses: { 200: shiftReplies.one, ...standardFailures(404) },
  }),
  shiftRoute({
    operationId: 'dropCash',
    method: 'POST',
    url: '/shifts/:shift_id/drops',
    subject: BillingSubjects.dropCash,
    summary: "Put cash from the shift's drawer in the safe (the shift's cashier or an admin)",
    body: shiftMovementBodySchema(false),
    responses: { 201: shiftReplies.changed, ...standardFailures(404, 409, 413) },
  }),
  shiftRoute({
    operationId: 'payOutCash',
    method: 'POST',
    url: '/shifts/:shift_id/payouts',
    subject: BillingSubjects.payOutCash,
    summary: "Pay petty cash out of the shift's drawer, with a reason (the shift's cashier or an admin)",
    body: shiftMovementBodySchema(true),
    responses: { 201: shiftReplies.changed, ...standardFailures(404, 409, 413) },
  }),
  shiftRoute({
    operationId: 'closeShift',
    method: 'POST',
    url: '/shifts/:shift_id/close',
    subject: BillingSubjects.closeShift,
    summary: 'Close the shift with the count of its drawer: over or short against what it should hold',
    body: closeShiftBodySchema,
    responses: { 200: shiftReplies.changed, ...standardFailures(404, 409, 413) },
  }),
  shiftRoute({
    operationId: 'signOffShift',
    method: 'POST',
    url: '/shifts/:shift_id/sign_off',
    subject: BillingSubjects.signOffShift,
    summary: "A manager's sign-off of a closed shift's count (admin)",
    body: signOffBodySchema,
    bodyOptional: true,
    responses: { 200: shiftReplies.changed, ...standardFailures(404, 409, 413) },
  }),
  shiftRoute({
    operationId: 'handOverShift',
    method: 'POST',
    url: '/shifts/:shift_id/handover',
    subject: BillingSubjects.handOverShift,
    summary: 'Count the drawer and pass it to the next cashier, who accepts the counted amount',
    body: handoverBodySchema,
    responses: { 200: shiftReplies.changed, ...standardFailures(404, 409, 413) },
  }),
  shiftRoute({
    operationId: 'acceptHandover',
    method: 'POST',
    url: '/shifts/:shift_id/accept',
    subject: BillingSubjects.acceptHandover,
    summary: 'The next cashier accepts the drawer handed over: their shift opens with the counted amount as its float',
    body: acceptHandoverBodySchema,
    responses: { 201: shiftReplies.accepted, ...standardFailures(404, 409, 413) },
  }),
  {
    operationId: 'requestApproval',
    method: 'POST',
    url: '/approvals',
    branchScope: 'named',
    subject: BillingSubjects.requestApproval,
    tag,
    summary:
      "Ask an admin to approve what a control refused (APPROVAL_REQUIRED's `approval`), with a reason; an admin's own request is approved at once",
    body: requestApprovalBodySchema,
    responses: { 201: approvalReplies.changed, ...standardFailures(413) },
  },
  {
    operationId: 'listApprovals',
    method: 'GET',
    url: '/approvals',
    branchScope: 'named',
    subject: BillingSubjects.approvals,
    tag,
    summary: "A branch's approvals, newest first: those asked on a day, or waiting for an admin (status=requested)",
    querystring: approvalsQuerySchema,
    responses: { 200: approvalReplies.list, ...standardFailures() },
  },
  approvalRoute({
    operationId: 'getApproval',
    method: 'GET',
    url: '/approvals/:approval_id',
    subject: BillingSubjects.approval,
    summary: 'One approval: who asked, why, who decided, and what it was used on',
    responses: { 200: approvalReplies.one, ...standardFailures(404) },
  }),
  approvalRoute({
    operationId: 'approveApproval',
    method: 'POST',
    url: '/approvals/:approval_id/approve',
    subject: BillingSubjects.approve,
    summary: 'Approve a request (admin): the request it covers may then be sent again with its approval_id, once',
    body: decideApprovalBodySchema(false),
    bodyOptional: true,
    responses: { 200: approvalReplies.changed, ...standardFailures(404, 409, 413) },
  }),
  approvalRoute({
    operationId: 'declineApproval',
    method: 'POST',
    url: '/approvals/:approval_id/decline',
    subject: BillingSubjects.decline,
    summary: 'Decline a request (admin), with a note',
    body: decideApprovalBodySchema(true),
    responses: { 200: approvalReplies.changed, ...standardFailures(404, 409, 413) },
  }),
];
