/** The hospital-charge routes' requests and answers, built from the charge's field rules (fields/catalogue.ts). */
import {
  CATALOGUE_MESSAGES,
  CHARGE_FIELDS,
  CHARGE_HISTORY_ACTIONS,
  CHARGE_STATUSES,
  CHARGE_TYPES,
} from '../fields/catalogue';
import { Limits } from '../limits';
import {
  historyEntrySchema,
  optionallyPagedList,
  optionalPageQueryProperties,
  pageReplyProperties,
  IGNORED_FIELDS_NOTE,
  idSchema,
  messageSchema,
  nonBlank,
  optionalText,
  successSchema,
  timestampSchema,
  type JsonSchema,
} from './common';
import { approvalIdProperty } from './approvals';

const chargeFields: Record<string, JsonSchema> = {
  charge_name: nonBlank(Limits.nameMaxLength),
  charge_type: CHARGE_FIELDS.charge_type.schema,
  amount: CHARGE_FIELDS.amount.schema,
  status: CHARGE_FIELDS.status.schema,
  notes: optionalText(Limits.notesMaxLength),
};

export const createChargeBodySchema: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  description: IGNORED_FIELDS_NOTE,
  example: { charge_name: 'Vitamin D', charge_type: 'Lab', amount: 3500, store_id: 1, notes: 'Fasting not required' },
  required: ['charge_name', 'charge_type', 'amount', 'store_id'],
  properties: { ...chargeFields, store_id: CHARGE_FIELDS.store_id.schema, approval_id: approvalIdProperty },
};

export const updateChargeBodySchema: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  required: ['charge_name', 'charge_type', 'amount'],
  description: `status omitted means Active. store_id cannot be changed: like id, created_by and the timestamps a read returned, it is ignored. ${IGNORED_FIELDS_NOTE}`,
  properties: { ...chargeFields, approval_id: approvalIdProperty },
};

/** Optional: with APPROVE_CATALOGUE_CHANGES=true a cashier's deletion needs an admin's approval. */
export const deleteChargeBodySchema: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  description: IGNORED_FIELDS_NOTE,
  properties: { approval_id: approvalIdProperty },
};

export const listChargesQuerySchema: JsonSchema = {
  type: 'object',
  required: ['store_id'],
  properties: {
    store_id: idSchema,
    status: { type: 'string', maxLength: Limits.searchMaxLength, description: 'exact match' },
    charge_type: { type: 'string', maxLength: Limits.searchMaxLength, description: 'exact match' },
    search: {
      type: 'string',
      maxLength: Limits.searchMaxLength,
      description: 'case-insensitive substring of charge_name or notes',
    },
    ...optionalPageQueryProperties,
  },
};

const identitySchema: JsonSchema = {
  description: 'caller identity (`sub` of the token), an integer or a string',
  anyOf: [
    { type: 'integer', nullable: true },
    { type: 'string', nullable: true },
  ],
};

export const chargeSchema: JsonSchema = {
  type: 'object',
  required: [
    'id',
    'charge_name',
    'charge_type',
    'amount',
    'status',
    'notes',
    'store_id',
    'created_by',
    'updated_by',
    'created_at',
    'updated_at',
  ],
  properties: {
    id: idSchema,
    charge_name: { type: 'string' },
    charge_type: { type: 'string', enum: [...CHARGE_TYPES] },
    amount: { type: 'number' },
    status: { type: 'string', enum: [...CHARGE_STATUSES] },
    notes: { type: 'string', nullable: true },
    store_id: idSchema,
    created_by: identitySchema,
    updated_by: identitySchema,
    created_at: timestampSchema,
    updated_at: timestampSchema,
  },
};

export const catalogueResponses = {
  created: successSchema({ message: { type: 'string' }, charge_id: idSchema }),
  history: successSchema({
    charge_id: idSchema,
    history: { type: 'array', items: historyEntrySchema(CHARGE_HISTORY_ACTIONS) },
    ...pageReplyProperties,
  }),
  list: optionallyPagedList('charges', chargeSchema, true),
  one: successSchema({ charge: chargeSchema }),
  /** A replacement that changes nothing answers 200 with success false. */
  updated: {
    oneOf: [
      messageSchema,
      {
        type: 'object',
        required: ['success', 'error', 'code'],
        properties: {
          success: { type: 'boolean', enum: [false] },
          error: { type: 'string', enum: [CATALOGUE_MESSAGES.noChanges] },
          code: { type: 'string', enum: ['CHARGE_UNCHANGED'] },
        },
      },
    ],
  } as JsonSchema,
};

/** Billing's check of a bill's charges (catalogue.charge.check), which the catalogue answers. */
export interface ChargeCheckRequest {
  store_id: number;
  charge_ids: number[];
}

export interface ChargeCheckReply {
  success: true;
  /** The ids that are not Active, deleted, missing or of another store. */
  invalid_ids: number[];
  /** The current amount of each of the others, by id: a bill's price overrides are told from it. */
  amounts: Record<string, number>;
}

export const chargeCheckReplySchema: JsonSchema = successSchema({
  invalid_ids: { type: 'array', items: idSchema },
  amounts: {
    type: 'object',
    additionalProperties: { type: 'number' },
    description: 'the current amount of each billable charge asked, by id',
  },
});

export const chargeCheckBodySchema: JsonSchema = {
  type: 'object',
  required: ['store_id', 'charge_ids'],
  properties: { store_id: CHARGE_FIELDS.store_id.schema, charge_ids: CHARGE_FIELDS.charge_ids.schema },
};
