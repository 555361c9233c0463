/**
 * The checks a service's rules make, in the spec's order, against libs/contracts:
 * one field against its rule (FieldRule: the value must satisfy the rule's
 * JSON schema, the very schema the route's documentation shows, and the
 * caller is told the rule's message otherwise), a required field, and last
 * the whole body against its route's schema.
 */
import { closedSchema, FIELD_MESSAGES, type FieldRule, type JsonSchema } from '@clinic/contracts';
import { badRequest, type Invalid } from './errors';
import { type Cents, toCents } from './money';
import { compileSchema, schemaFailure } from './schema';
import { given, isBlankString, isPlainObject, trimmedOrNull, type PlainObject } from './validation';

/** The value, when it keeps `rule`; otherwise throws `invalid` (400 by default) with the rule's message for `field`. */
export function validField<T>(rule: FieldRule<T>, value: unknown, field: string, invalid: Invalid = badRequest): T {
  if (!compileSchema(rule.schema)(value)) throw invalid(rule.message(field, value), field);
  return value as T;
}

/** An amount of money that keeps `rule` (else as validField), in cents rounded half-up. */
export function validAmount(rule: FieldRule<number>, value: unknown, field: string): Cents {
  return toCents(validField(rule, value, field));
}

/** An optional text field: absent or null is none; else it must keep `rule` (else as validField), and blank is none. */
export function optionalText(body: PlainObject, field: string, rule: FieldRule<string>): string | null {
  return given(body, field) ? trimmedOrNull(validField(rule, body[field], field)) : null;
}

/** A body, or an entry of a list in one, must be a JSON object: otherwise 400 with `message` (and `field`). */
export function requireObject(value: unknown, message: string, field?: string): PlainObject {
  if (!isPlainObject(value)) throw badRequest(message, field);
  return value;
}

/** Absent, null or blank text: "`name` is required." */
export function requireField(body: PlainObject, field: string, invalid: Invalid = badRequest, name = field): void {
  if (!given(body, field) || isBlankString(body[field])) throw invalid(FIELD_MESSAGES.required(name), name);
}

/**
 * UNKNOWN_BODY_FIELDS=refuse (set once at start): requireShape refuses fields that a body's schema does not name
 * even where it accepts them (the spec's routes, which ignore them by default, as the original service did).
 */
let refuseUnknownFields = false;
export function setUnknownBodyFields(policy: 'ignore' | 'refuse'): void {
  refuseUnknownFields = policy === 'refuse';
}
const closed = new WeakMap<JsonSchema, JsonSchema>();

/** The whole body against its route's schema (sizes, unknown or nested fields), once the spec's own rules have passed. */
export function requireShape(schema: JsonSchema, body: unknown, invalid: Invalid = badRequest): void {
  let shape = schema;
  if (refuseUnknownFields) {
    shape = closed.get(schema) ?? closedSchema(schema);
    closed.set(schema, shape);
  }
  const problem = schemaFailure(shape, body);
  if (problem) throw invalid(problem.message, problem.field);
}
