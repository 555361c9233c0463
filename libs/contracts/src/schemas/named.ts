/**
 * The reply shapes the HTTP API names once (OpenAPI `components.schemas`):
 * the document states each there and refers to it wherever a reply holds it,
 * so the generated client (clients/typescript) has one type for each. A name
 * is the client's type name: renaming one changes the client.
 */
import { cashCountSchema, closingSchema, ledgerEntrySchema } from './billing-money';
import { billSchema, billWithItemsSchema } from './billing-replies';
import { approvalSchema } from './approvals';
import { shiftSchema } from './shifts';
import { chargeSchema } from './catalogue';
import { actorSchema, type JsonSchema } from './common';

export const NAMED_SCHEMAS: Record<string, JsonSchema> = {
  Actor: actorSchema,
  Approval: approvalSchema,
  CashCount: cashCountSchema,
  DayClosing: closingSchema,
  HospitalCharge: chargeSchema,
  LabBill: billSchema,
  LabBillWithItems: billWithItemsSchema,
  LedgerEntry: ledgerEntrySchema,
  Shift: shiftSchema,
};
