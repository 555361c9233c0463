/**
 * What the end-to-end suites expect of every failure the API answers: the envelope with a code of libs/contracts'
 * table, one its operation documents for that status, and the texts of each code (harness.ts re-exports these).
 */
import { ERROR_CODES, failuresOf, HTTP_ROUTES, type ErrorCode, type HttpRoute } from '@clinic/contracts';
import type { ApiResponse } from './harness';

/**
 * Every failure the API answers carries a code of libs/contracts' table, with one of the code's statuses and, for a
 * code of fixed texts, one of them: any end-to-end test that meets a failure without one fails here.
 */
export function checkFailureEnvelope(request: string, status: number, body: unknown): void {
  const failure = body as { success?: unknown; error?: unknown; code?: unknown } | null;
  if (typeof failure !== 'object' || failure === null || failure.success !== false) return;
  const entry = ERROR_CODES[failure.code as ErrorCode] as (typeof ERROR_CODES)[ErrorCode] | undefined;
  const problem = !entry
    ? 'no code of the table (libs/contracts/src/error-codes.ts)'
    : !(entry.status as readonly number[]).includes(status)
      ? `a code answered with ${entry.status.join(', ')}, not ${status}`
      : entry.messages.every((text) => typeof text === 'string') && !entry.messages.includes(String(failure.error))
        ? "a text that is not one of the code's"
        : null;
  if (problem) throw new Error(`${request} answered ${status} ${JSON.stringify(body)}: ${problem}`);
  const route = routeOf(request);
  if (
    route &&
    !failuresOf(route)
      .get(status)
      ?.includes(failure.code as ErrorCode)
  )
    throw new Error(
      `${request} answered ${status} ${JSON.stringify(body)}: a code ${route.operationId} does not document with ${status} (libs/contracts/src/operation-errors.ts)`,
    );
}

const ROUTE_PATTERNS = HTTP_ROUTES.map((route) => ({
  route,
  pattern: new RegExp(`^${route.url.replace(/:\w+/g, '[^/]+')}$`),
}));
/** Paths of routes without a parameter: `/lab_bills/summary` is never a bill's id (PUT there is a 405). */
const STATIC_PATHS = new Set(HTTP_ROUTES.filter((route) => !route.url.includes(':')).map((route) => route.url));

/** The route a request (`METHOD /path?query`) was for, if any. */
function routeOf(request: string): HttpRoute | undefined {
  const [method, target = ''] = request.split(' ');
  const path = new URL(target, 'http://x').pathname;
  return ROUTE_PATTERNS.find(
    ({ route, pattern }) =>
      route.method === method && pattern.test(path) && (!route.url.includes(':') || !STATIC_PATHS.has(path)),
  )?.route;
}

/** The codes of fixed texts (VALIDATION_FAILED's texts are made per field). */
const CODE_OF_TEXT = new Map(
  (Object.keys(ERROR_CODES) as ErrorCode[])
    .filter((code) => code !== 'VALIDATION_FAILED')
    .flatMap((code) => ERROR_CODES[code].messages.map((text) => [text, code] as const)),
);

/**
 * The failure envelope of this text: the code of a fixed text, or VALIDATION_FAILED with `field`, the field the
 * text begins with (`items[0].qty must be...`, `Unknown field: x.`; none for the body as a whole).
 */
export function failureOf(error: string) {
  const code = CODE_OF_TEXT.get(error);
  if (code) return { success: false, error, code };
  const field =
    /^Unknown field: (.+)\.$/.exec(error)?.[1] ??
    /^([a-z_]+(?:\[\d+\])?(?:\.[a-z_]+)*) (?:must|is|cannot|lists)\b/.exec(error)?.[1];
  return { success: false, error, code: 'VALIDATION_FAILED', ...(field === undefined ? {} : { field }) };
}

/** Sends each case's body and expects it refused: its status and the envelope of its text (failureOf). */
export async function expectRefusals(
  cases: ReadonlyArray<readonly [body: unknown, status: number, error: string]>,
  send: (body: unknown) => Promise<ApiResponse>,
): Promise<void> {
  for (const [body, status, error] of cases) {
    const res = await send(body);
    expect({ body, status: res.status, answer: res.body }).toEqual({ body, status, answer: failureOf(error) });
  }
}

/** What GET /health answers while a part of the system is down. */
export const DEGRADED = { ...failureOf('Some parts of the system are unavailable.'), status: 'degraded' };
