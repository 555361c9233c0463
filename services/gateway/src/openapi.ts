import { accessNote, HeaderNames, HTTP_ROUTES, Limits, pathParamsSchema, type HttpRoute } from '@clinic/contracts';

/** Where the id of a created resource can be used next: the links stateful testing follows. */
const CREATED_ID_LINKS: Array<{ create: string; idField: string; param: string; path: string }> = [
  { create: '/lab_bills', idField: 'bill_id', param: 'bill_id', path: '/lab_bills/{bill_id}' },
  { create: '/lab_bills', idField: 'bill_id', param: 'bill_id', path: '/lab_bills/{bill_id}/history' },
  { create: '/lab_bills', idField: 'bill_id', param: 'bill_id', path: '/lab_bills/{bill_id}/receipt' },
  { create: '/hospital_charges', idField: 'charge_id', param: 'charge_id', path: '/hospital_charges/{charge_id}' },
  {
    create: '/hospital_charges',
    idField: 'charge_id',
    param: 'charge_id',
    path: '/hospital_charges/{charge_id}/history',
  },
  { create: '/add_session', idField: 'session_id', param: 'session_id', path: '/get_session/{session_id}' },
  { create: '/add_session', idField: 'session_id', param: 'session_id', path: '/update_session/{session_id}' },
  { create: '/add_session', idField: 'session_id', param: 'session_id', path: '/delete_session/{session_id}' },
];

// biome-ignore lint/suspicious/noExplicitAny: @fastify/swagger's document, edited in place below
type OpenApiObject = { paths?: Record<string, Record<string, any>> };

/**
 * Final touches @fastify/swagger cannot express from route schemas: optional
 * request bodies, and links from each create to the operations on what it created.
 */
export function finishOpenApiDocument(document: OpenApiObject): OpenApiObject {
  const paths = document.paths ?? {};
  for (const route of HTTP_ROUTES) {
    const operation = paths[openApiPath(route.url)]?.[route.method.toLowerCase()];
    if (route.bodyOptional && operation?.requestBody) operation.requestBody.required = false;
    const produced = route.produces ? operation?.responses?.['200'] : undefined;
    if (produced) produced.content = { [route.produces!]: { schema: { type: 'string', format: 'binary' } } };
    // An optional query filter given empty (`?date=`) is the same as absent.
    for (const parameter of operation?.parameters ?? []) {
      if (parameter.in === 'query' && !parameter.required) parameter.allowEmptyValue = true;
    }
  }
  for (const link of CREATED_ID_LINKS) {
    const created = paths[link.create]?.post?.responses?.['201'];
    const target = paths[link.path];
    if (!created || !target) continue;
    for (const method of Object.keys(target)) {
      created.links ??= {};
      created.links[`${method}${link.path.replace(/[^A-Za-z]/g, '_')}`] = {
        operationRef: `#/paths/${link.path.replaceAll('~', '~0').replaceAll('/', '~1')}/${method}`,
        parameters: { [link.param]: `$response.body#/${link.idField}` },
      };
    }
  }
  return document;
}

export function openApiPath(url: string): string {
  return url.replace(/:(\w+)/g, '{$1}');
}

export function openApiDocument() {
  return {
    openapi: '3.0.3',
    info: {
      title: 'Clinic API',
      version: '1.0.0',
      description:
        'Lab bills, hospital charges and channeling sessions. Every response is a JSON object with a boolean `success`; ' +
        'failures carry `error`. Send `Authorization: Bearer <JWT>`.\n\n' +
        'Branch scope: a token may carry `store_ids`, the branches (store ids, positive integers) it is limited to. ' +
        'With it, a request naming another branch is 403 `Not allowed for this branch.` and a record of another branch ' +
        'is not found (404); each operation says which. Without it, every branch is reachable, unless the server runs ' +
        'with BRANCH_SCOPE=required: then only an admin token reaches every branch without it, others get 403.',
    },
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http' as const,
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'Claims: `sub` (integer or string), `role`, `exp`, optional `iat` (a number) and `store_ids` (array of branch ids).',
        },
      },
    },
    security: [{ bearerAuth: [] }],
    tags: [{ name: 'Lab bills' }, { name: 'Hospital charges' }, { name: 'Channeling sessions' }],
  };
}

/** The Fastify route schema, used only to generate the OpenAPI document. */
export function routeSchema(route: HttpRoute): Record<string, unknown> {
  const schema: Record<string, unknown> = {
    tags: [route.tag],
    summary: route.summary,
    description: accessNote(route.subject, route.branchScope),
    security: [{ bearerAuth: [] }],
    response: route.responses,
  };
  const params = pathParamsSchema(route);
  if (params) schema.params = params;
  if (route.querystring) schema.querystring = route.querystring;
  if (route.body) schema.body = route.body;
  if (route.idempotent) {
    schema.headers = {
      type: 'object',
      properties: {
        [HeaderNames.idempotencyKey]: {
          type: 'string',
          minLength: 1,
          maxLength: Limits.idempotencyKeyMaxLength,
          pattern: '^[\\x21-\\x7e]+$',
          description: 'Repeating the request with the same key returns the first result instead of making a second.',
        },
      },
    };
  }
  return schema;
}
