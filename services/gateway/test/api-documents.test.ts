/**
 * The committed API documents (docs/openapi.json, docs/asyncapi.json) are
 * exactly what `npm run openapi` writes from the contracts (the typed client's
 * types are made from docs/openapi.json by every build): a route, schema or message changed without regenerating them fails here.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { failuresOf, HTTP_ROUTES, type HttpRoute } from '@clinic/contracts';
import { buildOpenApiDocument } from '../src/openapi';

const REPO_ROOT = join(__dirname, '..', '..', '..');

let openapi: any;

const operationOf = (route: HttpRoute) =>
  openapi.paths[route.url.replace(/:(\w+)/g, '{$1}')][route.method.toLowerCase()];

beforeAll(async () => {
  openapi = await buildOpenApiDocument();
});

it('are committed as npm run openapi writes them', () => {
  // The built script (npm test builds first), as npm run openapi runs it.
  const check = spawnSync(process.execPath, ['services/gateway/dist/api-documents.js', '--check'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  expect(check.stderr).toBe('API documents are up to date\n');
  expect(check.status).toBe(0);
}, 60_000);

it('is OpenAPI 3.1 with a unique operationId on every operation', () => {
  expect(openapi.openapi).toBe('3.1.0');
  const ids = HTTP_ROUTES.map(
    (route) => openapi.paths[route.url.replace(/:(\w+)/g, '{$1}')][route.method.toLowerCase()].operationId,
  );
  expect(ids).toEqual(HTTP_ROUTES.map((route) => route.operationId));
  expect(new Set(ids).size).toBe(ids.length);
  for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z]+$/);
});

it('documents 304 on the reads of one record, 412 on their changes and 429 everywhere', () => {
  for (const route of HTTP_ROUTES) {
    const operation = openapi.paths[route.url.replace(/:(\w+)/g, '{$1}')][route.method.toLowerCase()];
    const statuses = Object.keys(operation.responses);
    expect(statuses).toContain('429');
    expect(statuses.includes('304')).toBe(route.conditional === 'read');
    expect(statuses.includes('412')).toBe(route.conditional === 'write');
    const headers = (operation.parameters ?? [])
      .filter((p: { in: string }) => p.in === 'header')
      .map((p: { name: string }) => p.name);
    expect(headers.includes('If-None-Match')).toBe(route.conditional === 'read');
    expect(headers.includes('If-Match')).toBe(route.conditional === 'write');
    if (route.conditional === 'read') expect(operation.responses['200'].headers.ETag).toBeDefined();
    // A PUT answers the record's new tag, for the next If-Match.
    if (route.conditional === 'write' && route.method === 'PUT')
      expect({ route: route.operationId, etag: operation.responses['200'].headers?.ETag }).toEqual({
        route: route.operationId,
        etag: expect.objectContaining({ schema: expect.anything() }),
      });
  }
});

it('states each failure answer and each named reply shape once, referred to wherever it is given', () => {
  const text = JSON.stringify(openapi);
  for (const [ref, kind = '', name = ''] of text.matchAll(/"\$ref":"#\/components\/(\w+)\/(\w+)"/g))
    expect({ ref, stated: name in openapi.components[kind] }).toEqual({ ref, stated: true });
  // The same answers everywhere (a 401 is the token's, whatever the operation) are named once.
  for (const route of HTTP_ROUTES)
    expect(operationOf(route).responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
  expect(text.match(/"\$ref":"#\/components\/schemas\/LabBillWithItems"/g)?.length).toBeGreaterThan(1);
  expect(text).not.toContain('"title":"LabBill"');
});

/** A failure answer's codes, following its reference when it is named. */
function codesOf(response: any): string[] {
  const stated = response.$ref ? openapi.components.responses[response.$ref.split('/').pop()] : response;
  const schema = stated.content['application/json'].schema;
  // A failure with a success status stands beside the success reply (oneOf): its envelope is the one with `code`.
  const failure = schema.oneOf ? schema.oneOf.find((one: any) => one.properties?.code) : schema;
  return failure.properties.code.enum;
}

it("lists exactly each operation's codes per status, 429, 413, 431, 503 and 504 with the envelope", () => {
  for (const route of HTTP_ROUTES) {
    const responses = operationOf(route).responses;
    const failures = Object.keys(responses).filter((status) => Number(status) >= 400);
    expect({ route: route.operationId, failures }).toEqual({
      route: route.operationId,
      failures: [...failuresOf(route).keys()].filter((status) => status >= 400).map(String),
    });
    for (const [status, codes] of failuresOf(route)) expect(codesOf(responses[String(status)])).toEqual(codes);
    for (const status of ['429', '431', '503', '504']) expect(codesOf(responses[status]).length).toBeGreaterThan(0);
    if (route.method !== 'GET') expect(codesOf(responses['413'])).toContain('BODY_TOO_LARGE');
  }
  const codes = (operationId: string, status: number) =>
    failuresOf(HTTP_ROUTES.find((route) => route.operationId === operationId)!).get(status);
  expect(codes('createLabBill', 400)).toContain('BILL_CHARGES_INVALID');
  // PUT of the same values: 200 with success false, beside the changed charge.
  const unchanged = operationOf(HTTP_ROUTES.find((route) => route.operationId === 'updateHospitalCharge')!).responses[
    '200'
  ];
  expect(codesOf(unchanged)).toEqual(['CHARGE_UNCHANGED']);
  expect(unchanged.content['application/json'].schema.oneOf).toHaveLength(2);
  expect(codes('createLabBill', 400)).not.toContain('DOCTOR_NO_BRANCH');
  expect(codes('createLabBill', 400)).not.toContain('BAD_ENVELOPE');
  expect(codes('getLabBill', 404)).toEqual(['BILL_NOT_FOUND']);
  expect(codes('listSessions', 422)).toEqual(['VALIDATION_FAILED']);
});

it('documents /health for anyone and /health/details for an admin, and where the API is served', () => {
  expect(openapi.paths['/health'].get).toMatchObject({ operationId: 'getHealth', security: [] });
  expect(Object.keys(openapi.paths['/health'].get.responses)).toEqual(['200', '431', '503']);
  expect(
    openapi.paths['/health/details'].get.responses['200'].content['application/json'].schema.properties,
  ).toHaveProperty('identity_provider');
  expect(openapi.servers).toEqual([{ url: '/', description: 'The gateway serving this document' }]);
});

it('refuses no valid body in its schemas: every body is closed, none carries the prototype-poisoning guard', () => {
  for (const route of HTTP_ROUTES.filter((r) => r.body)) {
    const schema = operationOf(route).requestBody.content['application/json'].schema;
    expect({ route: route.operationId, additionalProperties: schema.additionalProperties }).toEqual({
      route: route.operationId,
      additionalProperties: false,
    });
  }
  const text = JSON.stringify(openapi);
  expect(text.includes('"not":') || text.includes('["__proto__"]')).toBe(false);
});
