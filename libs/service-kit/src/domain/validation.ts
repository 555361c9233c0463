/** Small predicates for the spec's ordered validation rules. */

export type PlainObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function has(obj: PlainObject, key: string): boolean {
  return Object.hasOwn(obj, key);
}

/** Present and not null. */
export function given(obj: PlainObject, key: string): boolean {
  return has(obj, key) && obj[key] !== null && obj[key] !== undefined;
}

export function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

export function isPositiveId(value: unknown): value is number {
  return isInteger(value) && value >= 1;
}

export function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

export function isNonBlankString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

export function isBlankString(value: unknown): boolean {
  return typeof value === 'string' && value.trim() === '';
}

/** Trimmed text, with blank (or absent) becoming null. */
export function trimmedOrNull(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/** Escapes every regular-expression metacharacter so that user input matches literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

export type QueryParams = Record<string, string | string[]> | undefined;

const INTEGER_TEXT = /^[+-]?\d{1,16}$/;

/**
 * An integer query parameter: a decimal integer, also written with a zero fraction (`2.0`), which JSON Schema (the
 * OpenAPI 3.1 document's) counts as the integer 2, so generated clients may write it so; anything else is undefined.
 */
export function parseQueryInteger(text: string | undefined): number | undefined {
  return parseIntegerText(text?.trim().replace(/^([+-]?\d{1,16})\.0+$/, '$1'));
}

/** Parses a decimal integer written in a query string or path; anything else is undefined. */
export function parseIntegerText(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (!INTEGER_TEXT.test(trimmed)) return undefined;
  const value = Number(trimmed);
  return Number.isSafeInteger(value) ? value : undefined;
}
