import { HeaderNames, Limits, pathParamsSchema, type HttpRoute } from '@clinic/contracts';

export function openApiDocument() {
  return {
    openapi: '3.0.3',
    info: {
      title: 'Clinic API',
      version: '1.0.0',
      description:
        'Lab bills, hospital charges and channeling sessions. Every response is a JSON object with a boolean `success`; ' +
        'failures carry `error`. Send `Authorization: Bearer <JWT>`.',
    },
    components: {
      securitySchemes: { bearerAuth: { type: 'http' as const, scheme: 'bearer', bearerFormat: 'JWT' } },
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
    security: [{ bearerAuth: [] }],
    response: route.responses,
  };
  const params = pathParamsSchema(route);
  if (params) schema.params = params;
  if (route.querystring) schema.querystring = route.querystring;
  if (route.body) schema.body = route.body;
  if (route.method === 'POST' && route.url === '/lab_bills') {
    schema.headers = {
      type: 'object',
      properties: {
        [HeaderNames.idempotencyKey]: {
          type: 'string',
          minLength: 1,
          maxLength: Limits.idempotencyKeyMaxLength,
          pattern: '^[\\x21-\\x7e]+$',
          description: 'Repeating a create with the same key returns the first result instead of a second bill.',
        },
      },
    };
  }
  return schema;
}
