/**
 * Each operation's failure answers in the OpenAPI document, made from what it
 * can answer (libs/contracts operation-errors.ts): per status the envelope with
 * exactly that operation's codes, and the headers that come with a status (the
 * rate limit's with 429). Alike answers are then named once (openapi-components.ts).
 */
import { STATUS_CODES } from 'node:http';
import { failureSchemaFor, failuresOf, type HttpRoute } from '@clinic/contracts';

const RATE_LIMIT_HEADERS = Object.fromEntries(
  [
    ['Retry-After', 'Seconds until the window lets the caller in again'],
    ['RateLimit-Limit', 'Requests allowed per window'],
    ['RateLimit-Remaining', 'Requests left in the window'],
    ['RateLimit-Reset', 'Seconds until the window resets'],
  ].map(([name, description]) => [name, { description, schema: { type: 'integer' } }]),
);

/** What each status means beyond its code's own text (the document's table of codes says the rest). */
const WHEN: Readonly<Record<number, string>> = {
  400: 'The request is refused: a field, the body, a header or the request itself',
  401: 'No token, or a token refused',
  403: 'Not allowed: the role, the branch, or the price',
  404: 'Not found, or of a branch out of the caller’s reach',
  409: 'In conflict with the record’s state: see the code',
  412: 'The record changed since it was read (If-Match)',
  413: 'The body, or the answer, is too large',
  422: 'Refused as the spec has it: a field, or an Idempotency-Key used for another request',
  429: 'Too many requests from this caller in the window (only when the server runs with RATE_LIMIT_MAX set)',
  431: 'The request headers are too large',
  500: 'Unexpected: the log line with the correlation id tells the cause',
  503: 'A service, its database or one it asks does not answer: retry',
  504: 'A service did not answer in time: retry',
};

// biome-ignore lint/suspicious/noExplicitAny: a part of the OpenAPI document
type Part = Record<string, any>;

/** The operation's failure answers, by status. */
export function failureResponses(route: HttpRoute): Record<string, Part> {
  return Object.fromEntries(
    [...failuresOf(route)].map(([status, codes]) => [
      String(status),
      {
        description: WHEN[status] ?? STATUS_CODES[status] ?? `Status ${status}`,
        ...(status === 429 ? { headers: RATE_LIMIT_HEADERS } : {}),
        content: { 'application/json': { schema: failureSchemaFor(status, codes) } },
      },
    ]),
  );
}

/**
 * A failure answered with a success status (CHARGE_UNCHANGED's 200, success
 * false) stands beside that status's success reply: either may come.
 */
export function withFailures(success: Part | undefined, failure: Part): Part {
  if (!success) return failure;
  const shapes = (answer: Part) => answer.content?.['application/json']?.schema;
  return {
    ...success,
    description: `${success.description}; or refused with success false (see the code)`,
    content: { 'application/json': { schema: { oneOf: [shapes(success), shapes(failure)] } } },
  };
}

/** Whether a status is a failure (the operation's success and 304 are not). */
export const isFailureStatus = (status: string) => Number(status) >= 400;
