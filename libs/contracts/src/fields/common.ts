/**
 * Field rules: each states once what a valid value of a request field is,
 * as the JSON schema that OpenAPI, AsyncAPI and fuzzing read, and what the
 * caller is told when a value is not. The services check a body's fields in
 * the spec's order against these same schemas (service-kit's validField),
 * then the whole body against the route's schema, which is built from them.
 */
import { Limits } from '../limits';
import { dateSchema, idSchema, moneySchema, positiveMoneySchema, timeSchema, type JsonSchema } from '../schemas/common';

/** `T`: what a valid value is, to the code that reads it. */
export interface FieldRule<T = unknown> {
  readonly schema: JsonSchema;
  /** What the caller is told when `field` holds `value`, which breaks the rule. */
  message(field: string, value: unknown): string;
  /** The value of an absent optional field, when it has one (also the schema's `default`). */
  readonly default?: T;
}

/** The wording of what is wrong with a field, whichever rule finds it. */
export const FIELD_MESSAGES = {
  bodyNotObject: 'Request body must be a JSON object.',
  required: (field: string) => `${field} is required.`,
  notText: (field: string) => `${field} must be a string.`,
  notObject: (field: string) => `${field} must be an object.`,
  notNumber: (field: string) => `${field} must be a number.`,
  notInteger: (field: string) => `${field} must be an integer.`,
  notPositiveId: (field: string) => `${field} must be a positive integer.`,
  notIntegerFrom: (field: string, min: number, max: number) => `${field} must be an integer from ${min} to ${max}.`,
  notDate: (field: string) => `${field} must be a date in YYYY-MM-DD format.`,
  notTime: (field: string) => `${field} must be a time in HH:MM format.`,
  notOneOf: (field: string, values: readonly string[]) => `${field} must be one of ${values.join(', ')}.`,
  notEither: (field: string, values: readonly string[]) => `${field} must be ${values.join(' or ')}.`,
  /** Characters as JSON Schema's maxLength counts them (code points). */
  tooLong: (field: string, max: number) => `${field} must be at most ${max} characters.`,
  tooMany: (field: string, max: number) => `${field} must have at most ${max} elements.`,
  /** A query parameter given twice is ambiguous. */
  givenTwice: (field: string) => `${field} must be given once.`,
} as const;

/** A rule of its own: what a valid value is, and what the caller is told otherwise. */
export function fieldRule<T>(schema: JsonSchema, message: (field: string, value: unknown) => string): FieldRule<T> {
  return { schema, message };
}

export const positiveId: FieldRule<number> = { schema: idSchema, message: FIELD_MESSAGES.notPositiveId };

/** A calendar date `YYYY-MM-DD` (2026-02-30 is not one). */
export const calendarDate: FieldRule<string> = { schema: dateSchema, message: FIELD_MESSAGES.notDate };

export const clockTime: FieldRule<string> = { schema: timeSchema, message: FIELD_MESSAGES.notTime };

export function integerFrom(min: number, max: number): FieldRule<number> {
  return {
    schema: { type: 'integer', minimum: min, maximum: max },
    message: (field) => FIELD_MESSAGES.notIntegerFrom(field, min, max),
  };
}

/** One of `values`, told as "one of A, B, C". */
export function oneOf<T extends string>(values: readonly T[], fallback?: T): FieldRule<T> {
  return enumRule(values, fallback, (field) => FIELD_MESSAGES.notOneOf(field, values));
}

/** One of `values`, told as "A or B". */
export function either<T extends string>(values: readonly T[], fallback?: T): FieldRule<T> {
  return enumRule(values, fallback, (field) => FIELD_MESSAGES.notEither(field, values));
}

function enumRule<T extends string>(
  values: readonly T[],
  fallback: T | undefined,
  message: (field: string) => string,
): FieldRule<T> {
  const schema: JsonSchema = { type: 'string', enum: [...values] };
  return fallback === undefined
    ? { schema, message }
    : { schema: { ...schema, default: fallback }, message, default: fallback };
}

/**
 * An amount of money, at most Limits.moneyMax in size, never below zero;
 * `positive`: above zero (a payment, a refund).
 */
export function money(options: { positive?: boolean } = {}): FieldRule<number> {
  const positive = options.positive ?? false;
  return {
    schema: positive ? positiveMoneySchema : moneySchema,
    message: (field, value) =>
      typeof value === 'number' && Number.isFinite(value) && (positive ? value > 0 : value >= 0)
        ? `${field} must be at most ${Limits.moneyMax} in size.`
        : `${field} must be a number greater than ${positive ? '0' : 'or equal to 0'}.`,
  };
}
