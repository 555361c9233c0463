import { FIELD_MESSAGES, Limits, type Caller, type ServiceRequest } from '@clinic/contracts';
import { badRequest, fail, type Invalid, type NotFoundCode } from '../domain/errors';
import type { HandlerContext } from './responder';
import { parseIntegerText, parseQueryInteger, type QueryParams } from '../domain/validation';

/**
 * The integer id in a path parameter. Anything else names no resource, so it
 * gets the resource's own 404.
 */
export function pathId(request: ServiceRequest, name: string, notFound: NotFoundCode): number {
  const id = parseIntegerText(request.params?.[name]);
  if (id === undefined || id < 1) throw fail(notFound);
  return id;
}

/** The caller of a subject whose access rule requires one (the responder has checked it). */
export function callerOf(ctx: HandlerContext): Caller {
  if (!ctx.caller) throw fail('AUTHENTICATION_REQUIRED');
  return ctx.caller;
}

/** A query parameter given twice is ambiguous: the caller gets told. */
function single(query: QueryParams, name: string, invalid: Invalid): string | undefined {
  const value = query?.[name];
  if (Array.isArray(value)) throw invalid(FIELD_MESSAGES.givenTwice(name), name);
  return value;
}

/**
 * A query parameter as text; undefined when absent or empty. With `maxChars`,
 * longer text is refused; characters are counted as JSON Schema's maxLength
 * counts them (code points, not UTF-16 units).
 */
export function queryText(
  query: QueryParams,
  name: string,
  invalid: Invalid = badRequest,
  maxChars?: number,
): string | undefined {
  const value = single(query, name, invalid);
  if (value === undefined || value === '') return undefined;
  if (maxChars !== undefined && [...value].length > maxChars)
    throw invalid(FIELD_MESSAGES.tooLong(name, maxChars), name);
  return value;
}

/** A positive integer query parameter; undefined when absent. */
export function queryId(query: QueryParams, name: string, invalid: Invalid = badRequest): number | undefined {
  const text = single(query, name, invalid);
  if (text === undefined || text.trim() === '') return undefined;
  const id = parseQueryInteger(text);
  if (id === undefined || id < 1) throw invalid(FIELD_MESSAGES.notPositiveId(name), name);
  return id;
}

/** A positive integer query parameter that must be present. */
export function requiredQueryId(query: QueryParams, name: string, invalid: Invalid = badRequest): number {
  const id = queryId(query, name, invalid);
  if (id === undefined) throw invalid(FIELD_MESSAGES.required(name), name);
  return id;
}

/** A page of a paged read (the bill list, an audit trail). */
export interface Page {
  page: number;
  per_page: number;
}

/**
 * `page` and `per_page`: refused (`invalid`, 400 by default) when not integers; a page below 1 is 1, per_page is
 * clamped to 1..perPageMax.
 */
export function parsePage(query: QueryParams, invalid: Invalid = badRequest): Page {
  const integer = (name: string, fallback: number) => {
    const text = queryText(query, name, invalid);
    if (text === undefined) return fallback;
    const value = parseQueryInteger(text);
    if (value === undefined) throw invalid(FIELD_MESSAGES.notInteger(name), name);
    return value;
  };
  const page = Math.max(1, integer('page', 1));
  const perPage = Math.min(Limits.perPageMax, Math.max(1, integer('per_page', Limits.perPageDefault)));
  return { page, per_page: perPage };
}

/**
 * The page of a list the spec answers whole (the charges, the sessions): undefined when neither `page` nor
 * `per_page` is given, else as parsePage reads them.
 */
export function optionalPage(query: QueryParams, invalid: Invalid = badRequest): Page | undefined {
  const given = (name: string) => queryText(query, name, invalid) !== undefined;
  return given('page') || given('per_page') ? parsePage(query, invalid) : undefined;
}

/** A whole list's items on one page, with the fields of a paged answer. */
export function pageOfList<T>(items: readonly T[], page: Page): { items: T[]; fields: ReturnType<typeof pageFields> } {
  const start = (page.page - 1) * page.per_page;
  const slice = items.slice(start, start + page.per_page);
  return { items: slice, fields: pageFields(slice.length, items.length, page) };
}

export function pageCount(total: number, perPage: number): number {
  return Math.max(1, Math.ceil(total / perPage));
}

/** What a paged answer carries beside its items. */
export function pageFields(count: number, total: number, page: Page) {
  return { count, total, page: page.page, per_page: page.per_page, pages: pageCount(total, page.per_page) };
}
