/**
 * JSON Schema building blocks, written in the OpenAPI 3.0 dialect (`nullable`)
 * that both @fastify/swagger and ajv understand.
 */
import { Limits } from '../limits';

export type JsonSchema = Record<string, unknown>;

export const idSchema: JsonSchema = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER };
/** A calendar date `YYYY-MM-DD` (2026-02-30 is not one). */
export const dateSchema: JsonSchema = { type: 'string', format: 'date', example: '2026-11-21' };
/** `HH:MM`, 00:00 to 23:59. */
export const TIME_PATTERN = '^([01]\\d|2[0-3]):[0-5]\\d$';
export const timeSchema: JsonSchema = { type: 'string', pattern: TIME_PATTERN, example: '09:00' };
/** `YYYY-MM` (without the anchors, so that a schema can make it optional). */
export const MONTH_SHAPE = '\\d{4}-(0[1-9]|1[0-2])';
export const monthSchema: JsonSchema = { type: 'string', pattern: `^${MONTH_SHAPE}$`, example: '2026-12' };
export const timestampSchema: JsonSchema = {
  type: 'string',
  nullable: true,
  description: '`YYYY-MM-DD HH:MM:SS` in the clinic time zone',
  example: '2026-11-21 09:30:00',
};
export const moneySchema: JsonSchema = { type: 'number', minimum: 0, maximum: Limits.moneyMax };
export const positiveMoneySchema: JsonSchema = { type: 'number', exclusiveMinimum: 0, maximum: Limits.moneyMax };

/**
 * The spec's routes accept fields beyond the ones they use and ignore them, as the original service did (a front-end
 * may send back the whole object it read), unless the services run with UNKNOWN_BODY_FIELDS=refuse.
 */
export const IGNORED_FIELDS_NOTE =
  'Send only these fields: others are accepted and ignored (neither stored nor echoed), or refused with the field named (400; 422 on the session routes) when the server runs with UNKNOWN_BODY_FIELDS=refuse.';
/** The routes beyond the spec refuse what they do not know: a misspelt field is a 400 naming it, not a silent no-op. */
export const UNKNOWN_FIELDS_REFUSED_NOTE = 'A field not listed here is refused (400, `field` names it).';

/** The schema with every object that accepts unknown fields (`additionalProperties: true`) refusing them instead. */
export function closedSchema(schema: JsonSchema): JsonSchema {
  const close = (part: unknown): unknown => {
    if (Array.isArray(part)) return part.map(close);
    if (typeof part !== 'object' || part === null) return part;
    const entries = Object.entries(part).map(([key, value]) => {
      if (key === 'additionalProperties' && value === true) return [key, false];
      // Examples and defaults are values, not schemas.
      return [key, key === 'example' || key === 'default' || key === 'enum' ? value : close(value)];
    });
    return Object.fromEntries(entries);
  };
  return close(schema) as JsonSchema;
}

/** `A, B or C`: a list of values in a description. */
export const orList = (values: readonly string[]): string =>
  values.length < 2 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;

export const nonBlank = (maxLength: number): JsonSchema => ({
  type: 'string',
  minLength: 1,
  maxLength,
  pattern: '\\S',
});
/** A field where null, or an empty string, is stored as null (`description` says what null means). */
export const orEmptyAsNull = (schema: JsonSchema, description: string): JsonSchema => ({
  description,
  anyOf: [
    { ...schema, nullable: true },
    { type: 'string', maxLength: 0 },
  ],
});

export const optionalText = (maxLength: number): JsonSchema => ({ type: 'string', nullable: true, maxLength });

export const messageSchema: JsonSchema = {
  type: 'object',
  required: ['success', 'message'],
  properties: { success: { type: 'boolean', enum: [true] }, message: { type: 'string' } },
};

/** An object of these properties, each required unless `required` names fewer. */
export function objectSchema(properties: Record<string, JsonSchema>, required = Object.keys(properties)): JsonSchema {
  return { type: 'object', required, properties };
}

/** New routes refuse what they do not know: a misspelt field is a 400 naming it. */
export const strict = (schema: JsonSchema): JsonSchema => ({ ...schema, additionalProperties: false });

export function successSchema(properties: Record<string, JsonSchema>, required = Object.keys(properties)): JsonSchema {
  return objectSchema({ success: { type: 'boolean', enum: [true] }, ...properties }, ['success', ...required]);
}

export function pathParams(name: string): JsonSchema {
  return {
    type: 'object',
    required: [name],
    properties: { [name]: idSchema },
  };
}

/** Who made a change: the token's claims. */
export const actorSchema: JsonSchema = {
  type: 'object',
  required: ['sub', 'role'],
  properties: {
    sub: { description: 'the token `sub`, an integer or a string', anyOf: [{ type: 'integer' }, { type: 'string' }] },
    role: { type: 'string' },
  },
};

/** One audited change: what each changed field held before and after it. */
export const historyEntrySchema = (actions: readonly string[]): JsonSchema => ({
  type: 'object',
  required: ['event_id', 'action', 'at', 'by', 'correlation_id', 'changes'],
  properties: {
    event_id: { type: 'string', description: 'also the id of the event the change published' },
    action: { type: 'string', enum: [...actions] },
    at: { ...timestampSchema, nullable: false },
    by: actorSchema,
    correlation_id: { type: 'string', nullable: true },
    changes: {
      type: 'object',
      description: 'each changed field: `{before, after}` (before is null on creation)',
      additionalProperties: { type: 'object', required: ['before', 'after'], properties: { before: {}, after: {} } },
    },
    reason: { type: 'string', nullable: true, description: 'cancellations only' },
  },
});

/** A paged read's query: the page and its size, as the bill list reads them. */
export const pageQueryProperties: Record<string, JsonSchema> = {
  // Any integer the service can read exactly; beyond that it answers 400.
  page: {
    type: 'integer',
    default: 1,
    minimum: Number.MIN_SAFE_INTEGER,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'values below 1 become 1',
  },
  per_page: {
    type: 'integer',
    default: Limits.perPageDefault,
    minimum: Number.MIN_SAFE_INTEGER,
    maximum: Number.MAX_SAFE_INTEGER,
    description: `clamped to 1..${Limits.perPageMax}`,
  },
};

/** A paged read's answer besides its items: how many it holds, of how many, which page of how many. */
export const pageReplyProperties: Record<string, JsonSchema> = {
  count: { type: 'integer' },
  total: { type: 'integer' },
  page: { type: 'integer' },
  per_page: { type: 'integer' },
  pages: { type: 'integer' },
};

/**
 * The page of a list the spec answers whole (the charges, the sessions): with `page` or `per_page` the answer
 * is paged as the bill list's; without either, the whole list.
 */
export const optionalPageQueryProperties: Record<string, JsonSchema> = Object.fromEntries(
  Object.entries(pageQueryProperties).map(([name, { default: _default, description, ...schema }]) => [
    name,
    { ...schema, description: `${description}; without page and per_page the whole list is answered` },
  ]),
);

/**
 * The answer of such a list: its items (and `count` when `counted`: the spec's charge list has it), and the
 * page's fields when a page was asked for.
 */
export function optionallyPagedList(items: string, itemSchema: JsonSchema, counted: boolean): JsonSchema {
  return {
    ...successSchema(
      { [items]: { type: 'array', items: itemSchema }, ...pageReplyProperties },
      counted ? [items, 'count'] : [items],
    ),
    description: `${counted ? '' : 'count, '}total, page, per_page and pages are present when page or per_page was given`,
  };
}

/** The query of an audit trail: a page of its entries, oldest first. */
export const historyQuerySchema: JsonSchema = { type: 'object', properties: pageQueryProperties };
