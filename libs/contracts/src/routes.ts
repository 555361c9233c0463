/**
 * The public HTTP API: each route forwards to one NATS subject. The gateway
 * registers exactly these routes and documents them with these schemas.
 */
import { accessOf } from './access';
import type { HttpRoute } from './http-route';
import { EXPORT_ROUTE } from './exports';
import { LEDGER_EXPORT_ROUTE } from './exports-ledger';
import { CREDIT_NOTE_ROUTES } from './routes-paper';
import { BILL_MONEY_ROUTES, DAY_CLOSE_ROUTES } from './routes-money';
import { SESSION_ROUTES } from './routes-sessions';
import { CHANNELING_ROUTES } from './routes-channeling';
import { CASH_OFFICE_ROUTES } from './routes-cash-office';
import * as billing from './schemas/billing';
import * as billingReplies from './schemas/billing-replies';
import * as catalogue from './schemas/catalogue';
import { historyQuerySchema, messageSchema, pathParams, type JsonSchema } from './schemas/common';
import { standardFailures } from './schemas/failures';
import { BillingSubjects, CatalogueSubjects } from './subjects';

export type { HttpMethod, HttpRoute } from './http-route';

function route(r: Omit<HttpRoute, 'access'>): HttpRoute {
  return { ...r, access: accessOf(r.subject) };
}

export const HTTP_ROUTES: readonly HttpRoute[] = [
  route({
    operationId: 'createLabBill',
    method: 'POST',
    url: '/lab_bills',
    branchScope: 'named',
    subject: BillingSubjects.create,
    tag: 'Lab bills',
    summary:
      'Create a lab bill; totals and bill number are computed by the service. Send an Idempotency-Key header to make retries safe.',
    body: billing.createBillBodySchema,
    idempotent: true,
    responses: { 201: billingReplies.billingResponses.created, ...standardFailures(400, 404, 409, 413, 422) },
  }),
  route({
    operationId: 'listLabBills',
    method: 'GET',
    url: '/lab_bills',
    branchScope: 'named',
    subject: BillingSubjects.list,
    tag: 'Lab bills',
    summary: 'List lab bills of a branch, newest first, paginated',
    querystring: billing.listBillsQuerySchema,
    responses: { 200: billingReplies.billingResponses.list, ...standardFailures(400) },
  }),
  route({
    operationId: 'getLabBillSummary',
    method: 'GET',
    url: '/lab_bills/summary',
    branchScope: 'named',
    subject: BillingSubjects.summary,
    tag: 'Lab bills',
    summary: 'Revenue summary over active lab bills of a branch',
    querystring: billing.summaryQuerySchema,
    responses: { 200: billingReplies.billingResponses.summary, ...standardFailures(400) },
  }),
  route({
    operationId: 'getLabBillDayEnd',
    method: 'GET',
    url: '/lab_bills/day_end',
    branchScope: 'named',
    subject: BillingSubjects.dayEnd,
    tag: 'Lab bills',
    summary:
      "Day-end report of a branch's bills of one date: per cashier, branch totals (equal to the summary's), cancellations; with format=pdf, printed on A4 with the refunds of the day and signature lines",
    querystring: billing.dayEndQuerySchema,
    produces: 'application/pdf',
    producesWhen: 'format=pdf',
    responses: { 200: billingReplies.billingExtraResponses.dayEnd, ...standardFailures(400) },
  }),
  ...DAY_CLOSE_ROUTES.map(route),
  route(EXPORT_ROUTE),
  route(LEDGER_EXPORT_ROUTE),
  route({
    operationId: 'getLabBill',
    method: 'GET',
    url: '/lab_bills/:bill_id',
    conditional: 'read',
    branchScope: 'record',
    subject: BillingSubjects.get,
    tag: 'Lab bills',
    summary: 'One lab bill with its items',
    param: 'bill_id',
    responses: { 200: billingReplies.billingResponses.one, ...standardFailures(404) },
  }),
  route({
    operationId: 'updateLabBill',
    method: 'PUT',
    url: '/lab_bills/:bill_id',
    conditional: 'write',
    branchScope: 'record',
    subject: BillingSubjects.update,
    tag: 'Lab bills',
    summary: 'Update payment details or notes of an active lab bill',
    param: 'bill_id',
    body: billing.updateBillBodySchema,
    responses: { 200: messageSchema, ...standardFailures(400, 404, 409, 413) },
  }),
  route({
    operationId: 'cancelLabBill',
    method: 'DELETE',
    url: '/lab_bills/:bill_id',
    conditional: 'write',
    branchScope: 'record',
    subject: BillingSubjects.cancel,
    tag: 'Lab bills',
    summary:
      'Cancel a lab bill (admin only), optionally with a reason; it then disappears from every read but its history',
    param: 'bill_id',
    body: billing.cancelBillBodySchema,
    bodyOptional: true,
    responses: { 200: messageSchema, ...standardFailures(404, 409, 413) },
  }),
  route({
    operationId: 'getLabBillHistory',
    method: 'GET',
    url: '/lab_bills/:bill_id/history',
    branchScope: 'record',
    subject: BillingSubjects.history,
    tag: 'Lab bills',
    summary: "A bill's audit trail, oldest first, paged as the bill list (admin only); cancelled bills included",
    param: 'bill_id',
    querystring: historyQuerySchema,
    responses: { 200: billingReplies.billingExtraResponses.history, ...standardFailures(404) },
  }),
  route({
    operationId: 'getLabBillReceipt',
    method: 'GET',
    url: '/lab_bills/:bill_id/receipt',
    branchScope: 'record',
    subject: BillingSubjects.receipt,
    tag: 'Lab bills',
    summary:
      'Printable receipt of a bill (PDF): an 80 mm roll by default, or A5; a cancelled bill reads CANCELLED, and every print after the first DUPLICATE n',
    param: 'bill_id',
    querystring: billing.receiptQuerySchema,
    produces: 'application/pdf',
    responses: { 200: billingReplies.billingExtraResponses.receipt, ...standardFailures(404, 413) },
  }),
  ...CREDIT_NOTE_ROUTES.map(route),
  ...BILL_MONEY_ROUTES.map(route),

  route({
    operationId: 'listHospitalCharges',
    method: 'GET',
    url: '/hospital_charges',
    branchScope: 'named',
    subject: CatalogueSubjects.list,
    tag: 'Hospital charges',
    summary: 'List the charges of a branch by name',
    querystring: catalogue.listChargesQuerySchema,
    responses: { 200: catalogue.catalogueResponses.list, ...standardFailures(400) },
  }),
  route({
    operationId: 'createHospitalCharge',
    method: 'POST',
    url: '/hospital_charges',
    branchScope: 'named',
    subject: CatalogueSubjects.create,
    tag: 'Hospital charges',
    summary: 'Create a hospital charge',
    body: catalogue.createChargeBodySchema,
    responses: { 201: catalogue.catalogueResponses.created, ...standardFailures(400, 409, 413) },
  }),
  route({
    operationId: 'getHospitalCharge',
    method: 'GET',
    url: '/hospital_charges/:charge_id',
    conditional: 'read',
    branchScope: 'record',
    subject: CatalogueSubjects.get,
    tag: 'Hospital charges',
    summary: 'One hospital charge',
    param: 'charge_id',
    responses: { 200: catalogue.catalogueResponses.one, ...standardFailures(404) },
  }),
  route({
    operationId: 'updateHospitalCharge',
    method: 'PUT',
    url: '/hospital_charges/:charge_id',
    conditional: 'write',
    branchScope: 'record',
    subject: CatalogueSubjects.update,
    tag: 'Hospital charges',
    summary: 'Replace a hospital charge; answers 200 with success false when nothing changes',
    param: 'charge_id',
    body: catalogue.updateChargeBodySchema,
    responses: { 200: catalogue.catalogueResponses.updated, ...standardFailures(400, 404, 409, 413) },
  }),
  route({
    operationId: 'deleteHospitalCharge',
    method: 'DELETE',
    url: '/hospital_charges/:charge_id',
    conditional: 'write',
    branchScope: 'record',
    subject: CatalogueSubjects.delete,
    tag: 'Hospital charges',
    summary: 'Delete a hospital charge (soft delete)',
    param: 'charge_id',
    body: catalogue.deleteChargeBodySchema,
    bodyOptional: true,
    responses: { 200: messageSchema, ...standardFailures(404, 409, 413) },
  }),
  route({
    operationId: 'getHospitalChargeHistory',
    method: 'GET',
    url: '/hospital_charges/:charge_id/history',
    branchScope: 'record',
    subject: CatalogueSubjects.history,
    tag: 'Hospital charges',
    summary:
      "A charge's audit trail, oldest first, paged as the bill list: every change of its name, type, amount, status or notes; deleted charges included",
    param: 'charge_id',
    querystring: historyQuerySchema,
    responses: { 200: catalogue.catalogueResponses.history, ...standardFailures(404) },
  }),
  ...SESSION_ROUTES.map(route),
  ...CHANNELING_ROUTES.map(route),
  ...CASH_OFFICE_ROUTES.map(route),
];

export function pathParamsSchema(r: HttpRoute): JsonSchema | undefined {
  return r.param ? pathParams(r.param) : undefined;
}
