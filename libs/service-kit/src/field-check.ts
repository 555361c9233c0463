/**
 * Checks one field against its rule from libs/contracts (FieldRule): the
 * value must satisfy the rule's JSON schema, the very schema the route's
 * documentation shows, and the caller is told the rule's message otherwise.
 */
import type { FieldRule } from '@clinic/contracts';
import { badRequest } from './errors';
import { compileSchema } from './schema';

/** The value, when it keeps `rule`; otherwise throws `invalid` (400 by default) with the rule's message for `field`. */
export function validField<T>(rule: FieldRule<T>, value: unknown, field: string, invalid: (message: string) => Error = badRequest): T {
  if (!compileSchema(rule.schema)(value)) throw invalid(rule.message(field, value));
  return value as T;
}
