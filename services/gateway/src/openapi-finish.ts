/**
 * What @fastify/swagger cannot express from route schemas, added to the
 * OpenAPI document: optional bodies, closed bodies, PDF answers, conditional
 * requests (ETag, If-None-Match and 304, If-Match), each operation's failures
 * (openapi-failures.ts), /health (openapi-health.ts), and the links from each
 * create to the operations on what it created.
 */
import { closedSchema, HTTP_ROUTES, type HttpRoute, type JsonSchema } from '@clinic/contracts';
import { failureResponses, isFailureStatus, withFailures } from './openapi-failures';
import { documentHealth } from './openapi-health';
import { nameSharedParts } from './openapi-components';
import type { OpenApiObject } from './openapi-object';

/**
 * Where the id of a created resource is used next: the operations on that
 * resource, and its audit trail. The trail is a resource of its own, kept
 * after the record is deleted or cancelled (a deleted charge's history
 * answers 200): it is linked as the trail of the created id, not as the record.
 */
const CREATED_ID_LINKS: Array<{ create: string; idField: string; targets: string[] }> = [
  {
    create: 'createLabBill',
    idField: 'bill_id',
    targets: [
      'getLabBill',
      'updateLabBill',
      'cancelLabBill',
      'getLabBillReceipt',
      'recordLabBillPayment',
      'listLabBillPayments',
      'refundLabBill',
      'getLabBillHistory',
    ],
  },
  {
    create: 'createHospitalCharge',
    idField: 'charge_id',
    targets: ['getHospitalCharge', 'updateHospitalCharge', 'deleteHospitalCharge', 'getHospitalChargeHistory'],
  },
  { create: 'addSession', idField: 'session_id', targets: ['getSession', 'updateSession', 'deleteSession'] },
];

const ETAG_HEADER = {
  description: "The strong entity tag of the record's representation (the digest of this body)",
  schema: { type: 'string' },
};

/**
 * "At least one of these fields" (an `anyOf` of alternatives that only require a field): generators turn each
 * alternative into a type of its own that takes any key, so a misspelt field would compile again. The document says
 * `minProperties: 1` instead, with the rule in the body's description; the service still checks it.
 */
function oneFieldAtLeast(schema: JsonSchema): JsonSchema {
  const alternatives = schema.anyOf as JsonSchema[] | undefined;
  const requireOnly = (part: JsonSchema) =>
    Array.isArray(part.required) && Object.keys(part).every((key) => ['type', 'required', 'properties'].includes(key));
  if (schema.type !== 'object' || !alternatives?.every(requireOnly)) return schema;
  const { anyOf: _alternatives, ...rest } = schema;
  return { ...rest, minProperties: 1 };
}

export function openApiPath(url: string): string {
  return url.replace(/:(\w+)/g, '{$1}');
}

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI operation object
function addConditional(route: HttpRoute, operation: Record<string, any>): void {
  const responses = operation.responses;
  operation.parameters ??= [];
  if (route.conditional === 'read') {
    if (responses['200']) responses['200'].headers = { ETag: ETAG_HEADER };
    operation.parameters.push({
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'ETags read before: 304 without a body while the record still has one of them',
      schema: { type: 'string' },
    });
    responses['304'] = {
      description: 'Not modified: the record still has a representation the caller holds (If-None-Match)',
      headers: { ETag: ETAG_HEADER },
    };
  } else if (route.conditional === 'write') {
    if (route.method === 'PUT' && responses['200'])
      responses['200'].headers = {
        ETag: {
          description:
            "The strong entity tag of the record's representation after the change (what a read would now give): send it as If-Match with the next change, no read needed",
          schema: { type: 'string' },
        },
      };
    operation.parameters.push({
      name: 'If-Match',
      in: 'header',
      required: false,
      description:
        "ETag(s) of the representation the caller read; the change is refused (412) when the record's is no longer one of them. `*`: any",
      schema: { type: 'string' },
    });
  }
}

export function finishOpenApiDocument(document: OpenApiObject): OpenApiObject {
  const paths = document.paths ?? {};
  const operations = new Map<string, { path: string; method: string }>();
  for (const route of HTTP_ROUTES) {
    const path = openApiPath(route.url);
    const method = route.method.toLowerCase();
    const operation = paths[path]?.[method];
    if (!operation) continue;
    operations.set(route.operationId, { path, method });
    if (route.bodyOptional && operation.requestBody) operation.requestBody.required = false;
    const produced = route.produces ? operation.responses?.['200'] : undefined;
    const exported = route.exports ? operation.responses?.['200'] : undefined;
    if (exported)
      exported.content = Object.fromEntries(
        Object.values(route.exports!).map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
      );
    if (produced)
      produced.content = {
        ...(route.producesWhen ? produced.content : {}),
        [route.produces!]: { schema: { type: 'string', format: 'binary' } },
      };
    // An optional query filter given empty (`?date=`) is the same as absent.
    for (const parameter of operation.parameters ?? []) {
      if (parameter.in === 'query' && !parameter.required) parameter.allowEmptyValue = true;
    }
    // A body is documented closed: what a client should send. Whether a server ignores other fields or refuses them
    // (UNKNOWN_BODY_FIELDS) is said in its description; a generated client refuses a misspelt field either way.
    // The refusal of `__proto__` and `constructor.prototype` keys is the parser's (400), not a schema's.
    for (const content of Object.values<{ schema: JsonSchema }>(operation.requestBody?.content ?? {}))
      content.schema = oneFieldAtLeast(closedSchema(content.schema));
    addConditional(route, operation);
    if (operation.parameters.length === 0) delete operation.parameters;
    // Exactly the codes this operation can answer, per status (operation-errors.ts), 429 and the gateway's included.
    for (const status of Object.keys(operation.responses))
      if (isFailureStatus(status)) delete operation.responses[status];
    for (const [status, failure] of Object.entries(failureResponses(route)))
      operation.responses[status] = withFailures(operation.responses[status], failure);
  }
  for (const link of CREATED_ID_LINKS) {
    const create = operations.get(link.create);
    const created = create ? paths[create.path]?.[create.method]?.responses?.['201'] : undefined;
    if (!created) continue;
    for (const target of link.targets) {
      const param = HTTP_ROUTES.find((r) => r.operationId === target)?.param;
      if (!param || !operations.has(target)) continue;
      created.links ??= {};
      created.links[target] = {
        operationId: target,
        parameters: { [param]: `$response.body#/${link.idField}` },
      };
    }
  }
  documentHealth(document);
  nameSharedParts(document);
  return document;
}
