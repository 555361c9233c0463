/**
 * The refusals the gateway answers itself, before anything reaches a service
 * (errors.ts, body.ts, the token and role checks): each in the envelope
 * `{success: false, error, code}` with its code's status, as docs/api.md
 * states, with the request's correlation id, and nothing forwarded.
 */
import {
  AUTH_MESSAGES,
  BAD_IDEMPOTENCY_KEY_MESSAGE,
  type ERROR_CODES,
  GATEWAY_MESSAGES,
  TOKEN_MESSAGES,
} from '@clinic/contracts';
import { HttpError } from '../../services/gateway/src/errors';
import { ask, fileGateway } from './gateway-harness';

const t = fileGateway('gateway-errors');
const admin = t.token('admin');

afterEach(() => {
  expect([...t.catalogue.received, ...t.billing.received]).toEqual([]);
});

const failure = (code: keyof typeof ERROR_CODES, error: string) => ({ success: false, error, code });

describe('who asks', () => {
  it('401 without a token, with a token badly signed, malformed or expired', async () => {
    const forged = `${admin.slice(0, -4)}AAAA`;
    const cases: Array<[string | undefined, ReturnType<typeof failure>]> = [
      [undefined, failure('AUTHENTICATION_REQUIRED', AUTH_MESSAGES.unauthenticated)],
      [forged, failure('TOKEN_INVALID', TOKEN_MESSAGES.invalid)],
      ['not.a.token', failure('TOKEN_INVALID', TOKEN_MESSAGES.invalid)],
      [t.expiredToken('admin'), failure('TOKEN_EXPIRED', TOKEN_MESSAGES.expired)],
    ];
    for (const [token, expected] of cases) {
      const res = await ask(t.app, 'GET', '/hospital_charges?store_id=1', token ? { token } : {});
      expect([res.status, res.json]).toEqual([401, expected]);
    }
  });

  it('403 for a role the route does not allow, before the body is read', async () => {
    const receptionist = t.token('receptionist');
    const res = await ask(t.app, 'DELETE', '/lab_bills/1', { token: receptionist, body: '{not json' });
    expect([res.status, res.json]).toEqual([403, failure('FORBIDDEN', AUTH_MESSAGES.forbidden)]);
  });

  it('401 before the body is read, too', async () => {
    const res = await ask(t.app, 'POST', '/hospital_charges', { body: '{not json' });
    expect(res.status).toBe(401);
  });
});

describe('what is asked', () => {
  it('404 ROUTE_NOT_FOUND for an unknown path, whatever the token', async () => {
    for (const token of [admin, undefined]) {
      const res = await ask(t.app, 'GET', '/no_such_route', token ? { token } : {});
      expect([res.status, res.json]).toEqual([404, failure('ROUTE_NOT_FOUND', GATEWAY_MESSAGES.notFound)]);
    }
  });

  it('414 PATH_TOO_LONG for a path id over 100 characters, 400 MALFORMED_REQUEST for a malformed path', async () => {
    const long = await ask(t.app, 'GET', `/hospital_charges/${'1'.repeat(101)}`, { token: admin });
    expect([long.status, long.json]).toEqual([414, failure('PATH_TOO_LONG', GATEWAY_MESSAGES.pathTooLong)]);
    const malformed = await ask(t.app, 'GET', '/hospital_charges/%E0%A4%A', { token: admin });
    expect([malformed.status, malformed.json]).toEqual([400, failure('MALFORMED_REQUEST', GATEWAY_MESSAGES.badPath)]);
  });

  it('405 METHOD_NOT_ALLOWED with Allow for a known path asked with another method', async () => {
    const res = await ask(t.app, 'PATCH', '/lab_bills/1', { token: admin, body: {} });
    expect([res.status, res.json]).toEqual([405, failure('METHOD_NOT_ALLOWED', GATEWAY_MESSAGES.methodNotAllowed)]);
    expect(res.headers.allow).toBe('DELETE, GET, HEAD, PUT');
  });

  it('400 for a body that is not JSON, or holds prototype-poisoning keys', async () => {
    const cases: Array<[string, ReturnType<typeof failure>]> = [
      ['{"charge_name":', failure('INVALID_JSON', GATEWAY_MESSAGES.invalidJson)],
      ['charge_name=CBC', failure('INVALID_JSON', GATEWAY_MESSAGES.invalidJson)],
      ['{"__proto__":{"admin":true}}', failure('BODY_FORBIDDEN_KEYS', GATEWAY_MESSAGES.poisoned)],
      ['{"a":{"constructor":{"prototype":{}}}}', failure('BODY_FORBIDDEN_KEYS', GATEWAY_MESSAGES.poisoned)],
    ];
    for (const [body, expected] of cases) {
      const res = await ask(t.app, 'POST', '/hospital_charges', { token: admin, body });
      expect([res.status, res.json]).toEqual([400, expected]);
    }
  });

  it('413 BODY_TOO_LARGE for a body over BODY_LIMIT_BYTES (512 KiB)', async () => {
    const res = await ask(t.app, 'POST', '/hospital_charges', {
      token: admin,
      body: { notes: 'n'.repeat(512 * 1024) },
    });
    expect([res.status, res.json]).toEqual([413, failure('BODY_TOO_LARGE', GATEWAY_MESSAGES.tooLarge)]);
  });

  it('400 IDEMPOTENCY_KEY_INVALID for a key that is not 1 to 100 visible ASCII characters', async () => {
    for (const key of ['two words', 'k'.repeat(101), 'clé']) {
      const res = await ask(t.app, 'POST', '/lab_bills', {
        token: admin,
        body: {},
        headers: { 'idempotency-key': key },
      });
      expect([res.status, res.json]).toEqual([400, failure('IDEMPOTENCY_KEY_INVALID', BAD_IDEMPOTENCY_KEY_MESSAGE)]);
    }
  });
});

describe('every refusal', () => {
  it('carries the correlation id given, or one of its own for one that is not valid', async () => {
    const given = await ask(t.app, 'GET', '/no_such_route', { headers: { 'x-correlation-id': 'abc-123:x' } });
    expect(given.headers['x-correlation-id']).toBe('abc-123:x');
    const invalid = await ask(t.app, 'GET', '/no_such_route', {
      headers: { 'x-correlation-id': 'spaces are not allowed' },
    });
    expect(invalid.headers['x-correlation-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("has its code's status and fixed text unless given another", () => {
    expect(new HttpError('SERVICE_TIMEOUT')).toMatchObject({ statusCode: 504, message: GATEWAY_MESSAGES.timeout });
    expect(new HttpError('MALFORMED_REQUEST', GATEWAY_MESSAGES.hostRequired)).toMatchObject({
      statusCode: 400,
      message: GATEWAY_MESSAGES.hostRequired,
    });
  });
});
