/**
 * The committed API documents (docs/openapi.json, docs/asyncapi.json) are
 * exactly what `npm run openapi` writes from the contracts (the typed client's
 * types are made from docs/openapi.json by every build): a route, schema or message changed without regenerating them fails here.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { HTTP_ROUTES } from '@clinic/contracts';
import { buildOpenApiDocument } from '../src/openapi';

const REPO_ROOT = join(__dirname, '..', '..', '..');

let openapi: any;

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
  }
});

it('states each failure answer and each named reply shape once, referred to wherever it is given', () => {
  const text = JSON.stringify(openapi);
  for (const [ref, kind = '', name = ''] of text.matchAll(/"\$ref":"#\/components\/(\w+)\/(\w+)"/g))
    expect({ ref, stated: name in openapi.components[kind] }).toEqual({ ref, stated: true });
  for (const route of HTTP_ROUTES) {
    const operation = openapi.paths[route.url.replace(/:(\w+)/g, '{$1}')][route.method.toLowerCase()];
    expect(operation.responses['400']).toEqual({ $ref: '#/components/responses/BadRequest' });
  }
  expect(openapi.components.responses.BadRequest.content['application/json'].schema.properties.code.enum).toContain(
    'VALIDATION_FAILED',
  );
  expect(text.match(/"\$ref":"#\/components\/schemas\/LabBillWithItems"/g)?.length).toBeGreaterThan(1);
  expect(text).not.toContain('"title":"LabBill"');
});
