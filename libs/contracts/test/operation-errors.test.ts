/**
 * The failures each operation can answer (operation-errors.ts): every route has
 * its entry, every code is answered with one of its own statuses, and every
 * failure status a route declares has codes that give it.
 */
import { ERROR_CODES, failuresOf, HTTP_ROUTES, OPERATION_ERRORS, type ErrorCode } from '../src';

it('has an entry for every route and none for another operation', () => {
  expect(Object.keys(OPERATION_ERRORS).sort()).toEqual(HTTP_ROUTES.map((route) => route.operationId).sort());
});

it('answers each code with one of its statuses, and gives each status a route declares', () => {
  for (const route of HTTP_ROUTES) {
    const failures = failuresOf(route);
    for (const [status, codes] of failures) {
      expect(codes.length).toBeGreaterThan(0);
      for (const code of codes)
        expect({ route: route.operationId, code, status: ERROR_CODES[code].status.includes(status as never) }).toEqual({
          route: route.operationId,
          code,
          status: true,
        });
    }
    const declared = Object.keys(route.responses)
      .map(Number)
      .filter((status) => status >= 400);
    expect({ route: route.operationId, missing: declared.filter((status) => !failures.has(status)) }).toEqual({
      route: route.operationId,
      missing: [],
    });
  }
});

it('keeps codes to the operations that can answer them', () => {
  const of = (operationId: string) =>
    [...failuresOf(HTTP_ROUTES.find((route) => route.operationId === operationId)!).values()].flat();
  const everywhere = (code: ErrorCode) => HTTP_ROUTES.every((route) => of(route.operationId).includes(code));
  expect(everywhere('TOKEN_EXPIRED') && everywhere('RATE_LIMITED') && everywhere('SERVICE_TIMEOUT')).toBe(true);
  expect(HTTP_ROUTES.some((route) => of(route.operationId).includes('BAD_ENVELOPE'))).toBe(false);
  // An admin keeps chain-wide reach: an admin-only operation never answers BRANCH_REQUIRED.
  expect(of('cancelLabBill')).not.toContain('BRANCH_REQUIRED');
  expect(of('getLabBill')).toContain('BRANCH_REQUIRED');
  expect(of('getLabBill')).not.toContain('BODY_TOO_LARGE');
  expect(of('getLabBill')).not.toContain('IDEMPOTENCY_KEY_INVALID');
  expect(of('createLabBill')).toEqual(expect.arrayContaining(['IDEMPOTENCY_KEY_REUSED', 'BRANCH_NOT_ALLOWED']));
  expect(of('updateLabBill')).toEqual(expect.arrayContaining(['PRECONDITION_FAILED', 'IF_MATCH_INVALID']));
  expect(of('listSessions')).not.toContain('FORBIDDEN');
});
