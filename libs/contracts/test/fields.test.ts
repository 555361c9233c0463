/**
 * The documented schemas (OpenAPI, AsyncAPI, fuzzing) are built from the same
 * field rules that the services check in the spec's order: a rule changed in
 * one place changes both, and a schema that states a field anew fails here.
 */
import {
  addSessionBodySchema,
  asyncApiDocument,
  BILL_FIELDS,
  billItemInputSchema,
  cancelBillBodySchema,
  CHARGE_FIELDS,
  chargeCheckBodySchema,
  createBillBodySchema,
  createChargeBodySchema,
  listBillsQuerySchema,
  listSessionsQuerySchema,
  receiptQuerySchema,
  SESSION_FIELDS,
  updateBillBodySchema,
  updateChargeBodySchema,
  updateSessionBodySchema,
  type FieldRule,
  type JsonSchema,
} from '../src';

const prop = (schema: JsonSchema, name: string): JsonSchema => {
  const found = (schema.properties as Record<string, JsonSchema>)[name];
  if (!found) throw new Error(`the schema has no property ${name}`);
  return found;
};

describe('field rules and schemas', () => {
  it.each([
    ['createBill.items', prop(createBillBodySchema, 'items'), BILL_FIELDS.items],
    ['createBill.store_id', prop(createBillBodySchema, 'store_id'), BILL_FIELDS.store_id],
    ['createBill.bill_date', prop(createBillBodySchema, 'bill_date'), BILL_FIELDS.bill_date],
    ['createBill.payment_method', prop(createBillBodySchema, 'payment_method'), BILL_FIELDS.payment_method],
    ['createBill.payment_status', prop(createBillBodySchema, 'payment_status'), BILL_FIELDS.payment_status],
    ['createBill.discount_type', prop(createBillBodySchema, 'discount_type'), BILL_FIELDS.discount_type],
    ['createBill.discount_value', prop(createBillBodySchema, 'discount_value'), BILL_FIELDS.discount_value],
    ['createBill.received_amount', prop(createBillBodySchema, 'received_amount'), BILL_FIELDS.cash_amount],
    ['createBill.balance_amount', prop(createBillBodySchema, 'balance_amount'), BILL_FIELDS.cash_amount],
    ['createBill.patient_id', prop(createBillBodySchema, 'patient_id'), BILL_FIELDS.patient_id],
    ['createBill.billed_by', prop(createBillBodySchema, 'billed_by'), BILL_FIELDS.billed_by],
    [
      'createBill.patient_age',
      (prop(createBillBodySchema, 'patient_age').anyOf as [JsonSchema, JsonSchema])[0],
      BILL_FIELDS.patient_age,
    ],
    ['item.charge_id', prop(billItemInputSchema, 'charge_id'), BILL_FIELDS.charge_id],
    ['item.unit_price', prop(billItemInputSchema, 'unit_price'), BILL_FIELDS.unit_price],
    ['item.qty', prop(billItemInputSchema, 'qty'), BILL_FIELDS.qty],
    ['updateBill.payment_method', prop(updateBillBodySchema, 'payment_method'), BILL_FIELDS.payment_method, ['enum']],
    ['updateBill.received_amount', prop(updateBillBodySchema, 'received_amount'), BILL_FIELDS.cash_amount],
    ['listBills.search', prop(listBillsQuerySchema, 'search'), BILL_FIELDS.search],
    ['cancelBill.reason', prop(cancelBillBodySchema, 'reason'), BILL_FIELDS.cancel_reason],
    ['receipt.size', prop(receiptQuerySchema, 'size'), BILL_FIELDS.receipt_size],
    ['createCharge.store_id', prop(createChargeBodySchema, 'store_id'), CHARGE_FIELDS.store_id],
    ['createCharge.amount', prop(createChargeBodySchema, 'amount'), CHARGE_FIELDS.amount],
    ['createCharge.charge_type', prop(createChargeBodySchema, 'charge_type'), CHARGE_FIELDS.charge_type],
    ['updateCharge.status', prop(updateChargeBodySchema, 'status'), CHARGE_FIELDS.status],
    ['chargeCheck.charge_ids', prop(chargeCheckBodySchema, 'charge_ids'), CHARGE_FIELDS.charge_ids],
    ['addSession.doctor_id', prop(addSessionBodySchema, 'doctor_id'), SESSION_FIELDS.doctor_id],
    ['addSession.session_date', prop(addSessionBodySchema, 'session_date'), SESSION_FIELDS.session_date],
    ['addSession.session_no', prop(addSessionBodySchema, 'session_no'), SESSION_FIELDS.session_no],
    ['addSession.start_time', prop(addSessionBodySchema, 'start_time'), SESSION_FIELDS.time],
    ['addSession.end_time', prop(addSessionBodySchema, 'end_time'), SESSION_FIELDS.time],
    ['addSession.max_patients', prop(addSessionBodySchema, 'max_patients'), SESSION_FIELDS.max_patients],
    ['updateSession.start_time', prop(updateSessionBodySchema, 'start_time'), SESSION_FIELDS.time],
    ['listSessions.date', prop(listSessionsQuerySchema, 'date'), SESSION_FIELDS.date],
    ['listSessions.conflicts', prop(listSessionsQuerySchema, 'conflicts'), SESSION_FIELDS.conflicts],
  ] as Array<[string, JsonSchema, FieldRule, string[]?]>)(
    '%s is its field rule',
    (_where, schema, rule, widened = []) => {
      // A schema may add to the rule (nullable, a description, blank as "not supplied", an example of its own:
      // a session's date the API takes whatever today is), never restate it.
      const { [widened[0] ?? '']: _ignored, example: _example, ...stated } = rule.schema;
      expect(schema).toMatchObject(stated);
      if (rule.default !== undefined) expect(schema.default).toBe(rule.default);
    },
  );

  it("gives billing's charge check the catalogue's rule in the AsyncAPI document", () => {
    const doc = asyncApiDocument() as {
      components: { messages: Record<string, { payload: { properties: { body: JsonSchema } } }> };
    };
    const check = Object.entries(doc.components.messages).find(
      ([name]) => name.startsWith('catalogue.charge.check') && name.endsWith('request'),
    );
    expect(check?.[1].payload.properties.body).toMatchObject({
      properties: { charge_ids: CHARGE_FIELDS.charge_ids.schema },
    });
  });
});
