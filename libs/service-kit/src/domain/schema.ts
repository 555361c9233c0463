import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { FIELD_MESSAGES, type JsonSchema } from '@clinic/contracts';

/** One ajv instance for the contracts' schemas (OpenAPI 3.0 dialect: `nullable`, `example`; `format: date`). */
// strictRequired is off: `anyOf` branches name properties that the parent schema defines.
export const ajv = new Ajv({
  allErrors: false,
  coerceTypes: false,
  useDefaults: false,
  strict: true,
  strictTypes: false,
  strictRequired: false,
});
ajv.addVocabulary(['example']);
addFormats(ajv, ['date']);

const compiled = new WeakMap<JsonSchema, ValidateFunction>();

export function compileSchema(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** `/items/3/qty` -> `items[3].qty` */
export function fieldPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (extra) parts.push(extra);
  return parts.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

export function describeSchemaError(error: ErrorObject): string {
  switch (error.keyword) {
    case 'additionalProperties': {
      const field = fieldPath(error.instancePath, String(error.params.additionalProperty));
      return `Unknown field: ${field}.`;
    }
    case 'required':
      return FIELD_MESSAGES.required(fieldPath(error.instancePath, String(error.params.missingProperty)));
    case 'maxLength':
      return FIELD_MESSAGES.tooLong(fieldPath(error.instancePath), Number(error.params.limit));
    case 'maxItems':
      return FIELD_MESSAGES.tooMany(fieldPath(error.instancePath), Number(error.params.limit));
    case 'minItems':
      return `${fieldPath(error.instancePath)} must have at least ${error.params.limit} element(s).`;
    case 'minProperties':
      return 'Request body must not be empty.';
    case 'format':
      return `${fieldPath(error.instancePath)} must be a valid ${error.params.format}.`;
    case 'maximum':
    case 'minimum':
      return `${fieldPath(error.instancePath)} must be ${error.keyword === 'maximum' ? '<=' : '>='} ${error.params.limit}.`;
    default:
      return `${fieldPath(error.instancePath) || 'Request body'} is invalid: ${error.message ?? 'invalid value'}.`;
  }
}

/** The field a schema error is about (`items[0].qty`); undefined for the body as a whole. */
function fieldOf(error: ErrorObject): string | undefined {
  const extra =
    error.keyword === 'additionalProperties'
      ? String(error.params.additionalProperty)
      : error.keyword === 'required'
        ? String(error.params.missingProperty)
        : undefined;
  return fieldPath(error.instancePath, extra) || undefined;
}

/**
 * Checks a value against a schema and returns the first problem, its message
 * and the field it is about, or null when it conforms.
 */
export function schemaFailure(schema: JsonSchema, value: unknown): { message: string; field?: string } | null {
  const validate = compileSchema(schema);
  if (validate(value)) return null;
  const [first] = validate.errors ?? [];
  if (!first) return { message: 'Request body is invalid.' };
  const field = fieldOf(first);
  return field === undefined ? { message: describeSchemaError(first) } : { message: describeSchemaError(first), field };
}

/** The first problem's message, or null when the value conforms. */
export function schemaProblem(schema: JsonSchema, value: unknown): string | null {
  return schemaFailure(schema, value)?.message ?? null;
}
