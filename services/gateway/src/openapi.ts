/**
 * The OpenAPI 3.1 document of the HTTP API, made from libs/contracts' route
 * table by @fastify/swagger on a Fastify instance of its own: no NATS, no
 * database, nothing listening. The gateway serves it at /docs/json and
 * `npm run openapi` writes it to docs/openapi.json (api-documents.ts).
 */
import Fastify from 'fastify';
import fastifySwagger from '@fastify/swagger';
import {
  accessNote,
  ERROR_CODE_NAMES,
  ERROR_CODES,
  errorCodeTable,
  HTTP_ROUTES,
  Limits,
  NAMED_SCHEMAS,
  pathParamsSchema,
  type HttpRoute,
  type JsonSchema,
} from '@clinic/contracts';
import { finishOpenApiDocument } from './openapi-finish';
import type { OpenApiObject } from './openapi-object';

/** The table of codes, machine-readable: each code's statuses and meaning. */
const ERROR_CODES_DOCUMENTED = Object.fromEntries(
  ERROR_CODE_NAMES.map((name) => [
    name,
    { status: ERROR_CODES[name].status, description: ERROR_CODES[name].description },
  ]),
);

function openApiBase() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Clinic API',
      version: '1.0.0',
      license: { name: 'Proprietary (UNLICENSED)' },
      description:
        'Lab bills, hospital charges and channeling sessions. Every response is a JSON object with a boolean `success`; ' +
        'failures carry `error`. Send `Authorization: Bearer <JWT>`.\n\n' +
        'Branch scope: a token may carry `store_ids`, the branches (store ids, positive integers) it is limited to. ' +
        'With it, a request naming another branch is 403 `Not allowed for this branch.` and a record of another branch ' +
        'is not found (404); each operation says which. Without it, every branch is reachable, unless the server runs ' +
        'with BRANCH_SCOPE=required: then only an admin token reaches every branch without it, others get 403.\n\n' +
        'Conditional requests: a bill, a charge and a session are read with an `ETag` (strong: the digest of the ' +
        "answer's body); `If-None-Match` answers 304, and `If-Match` on their PUT and DELETE refuses a change of a " +
        'record that changed since (412).\n\n' +
        'Error codes: every failure is `{success: false, error, code, field?}`: `error` is the text, `code` one of ' +
        'the table below (each answer lists the codes this operation can answer with its status), `field` the request field at fault (`items[0].qty`).' +
        `\n\n${errorCodeTable()}`,
    },
    'x-error-codes': ERROR_CODES_DOCUMENTED,
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
    // The gateway that serves this document (at /docs/json); a client of docs/openapi.json sets its own base URL.
    servers: [{ url: '/', description: 'The gateway serving this document' }],
    tags: [
      {
        name: 'Lab bills',
        description: "A branch's lab bills, their payments and refunds, its day-end and closed days",
      },
      { name: 'Hospital charges', description: "A branch's catalogue of charges, billed on lab bills" },
      { name: 'Channeling sessions', description: "Doctors' sessions, the appointments booked into them, their fees" },
      {
        name: 'Cash office',
        description: "Cashiers' shifts and drawers, and the approvals a clinic's controls ask for",
      },
      { name: 'Health', description: 'Whether the system answers, for load balancers and operators' },
    ],
  };
}

const idempotencyKeyHeader = {
  // As the docs spell it (HTTP header names are case-insensitive; generated clients type the name as written here).
  'Idempotency-Key': {
    type: 'string',
    minLength: 1,
    maxLength: Limits.idempotencyKeyMaxLength,
    pattern: '^[\\x21-\\x7e]+$',
    description: 'Repeating the request with the same key returns the first result instead of making a second.',
  },
};

/** A route's query as HTTP takes it: without the parameters of its NATS subject only. */
function httpQuerySchema(route: HttpRoute): JsonSchema | undefined {
  const { querystring, natsOnlyQuery = [] } = route;
  if (!querystring || natsOnlyQuery.length === 0) return querystring;
  const properties = Object.entries((querystring.properties ?? {}) as Record<string, JsonSchema>);
  return {
    ...querystring,
    properties: Object.fromEntries(properties.filter(([name]) => !natsOnlyQuery.includes(name))),
  };
}

/** The Fastify route schema the document is made from. */
function routeSchema(route: HttpRoute): Record<string, unknown> {
  const schema: Record<string, unknown> = {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    description: accessNote(route.subject, route.branchScope),
    security: [{ bearerAuth: [] }],
    response: route.responses,
  };
  const params = pathParamsSchema(route);
  if (params) schema.params = params;
  if (route.querystring) schema.querystring = httpQuerySchema(route);
  if (route.body) schema.body = route.body;
  if (route.idempotent) schema.headers = { type: 'object', properties: idempotencyKeyHeader };
  return schema;
}

/** The document, as the gateway serves it and `npm run openapi` writes it. */
export async function buildOpenApiDocument(): Promise<OpenApiObject> {
  const app = Fastify({ logger: false });
  await app.register(fastifySwagger, {
    openapi: openApiBase(),
    // Each named schema under its own name in components.schemas (openapi-components.ts refers to it).
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (document) =>
      finishOpenApiDocument('openapiObject' in document ? (document.openapiObject as never) : {}) as never,
  });
  // The schemas only document: the services validate their own messages.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  for (const [name, schema] of Object.entries(NAMED_SCHEMAS)) app.addSchema({ $id: name, ...schema });
  for (const route of HTTP_ROUTES) {
    app.route({ method: route.method, url: route.url, schema: routeSchema(route), handler: async () => null });
  }
  await app.ready();
  const document = app.swagger() as OpenApiObject;
  await app.close();
  return document;
}
