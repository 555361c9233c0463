/**
 * `/health` and `/health/details` in the OpenAPI document: the gateway answers
 * them itself (health.ts), so they are not routes of libs/contracts. Load
 * balancers ask the first without a token; an admin asks the second.
 */
import { failureSchemaFor, GATEWAY_MESSAGES, SERVICE_NAMES } from '@clinic/contracts';
import type { OpenApiObject } from './openapi-object';

const liveness = (success: boolean) => ({
  type: 'object',
  required: success ? ['success', 'status'] : ['success', 'status', 'error', 'code'],
  properties: {
    success: { type: 'boolean', enum: [success] },
    status: { type: 'string', enum: [success ? 'ok' : 'degraded'] },
    ...(success
      ? {}
      : {
          error: { type: 'string', enum: [GATEWAY_MESSAGES.unhealthy] },
          code: { type: 'string', enum: ['SERVICE_UNAVAILABLE'] },
        }),
  },
});

const part = { type: 'string', enum: ['ok', 'down'] };
const report = {
  type: 'object',
  required: ['success', 'status', 'gateway', 'nats', 'services'],
  properties: {
    ...liveness(true).properties,
    success: { type: 'boolean' },
    status: { type: 'string', enum: ['ok', 'degraded'] },
    error: { type: 'string' },
    code: { type: 'string', enum: ['SERVICE_UNAVAILABLE'] },
    gateway: { type: 'string', enum: ['ok'] },
    nats: part,
    nats_rtt_ms: { type: 'number', description: 'the round trip to the NATS server' },
    services: {
      type: 'object',
      required: [...SERVICE_NAMES],
      properties: Object.fromEntries(
        SERVICE_NAMES.map((name) => [
          name,
          {
            type: 'object',
            required: ['status'],
            properties: { status: part, detail: { type: 'string' }, instance: { type: 'string' } },
          },
        ]),
      ),
    },
    identity_provider: {
      type: 'object',
      description: "With JWT_JWKS_URL: the provider's keys as this gateway holds them (docs/operations.md)",
      required: ['status', 'keys', 'fetched_at', 'usable_until'],
      properties: {
        status: { type: 'string', enum: ['ok', 'unreachable', 'expired', 'not_fetched'] },
        keys: { type: 'integer' },
        fetched_at: { type: ['string', 'null'], format: 'date-time' },
        usable_until: { type: ['string', 'null'], format: 'date-time' },
        last_failure: {
          type: 'object',
          required: ['at', 'error', 'failures'],
          properties: {
            at: { type: 'string', format: 'date-time' },
            error: { type: 'string' },
            failures: { type: 'integer' },
          },
        },
      },
    },
  },
};

const json = (schema: unknown) => ({ 'application/json': { schema } });

export function documentHealth(document: OpenApiObject): void {
  document.paths ??= {};
  document.paths['/health'] = {
    get: {
      operationId: 'getHealth',
      tags: ['Health'],
      summary: 'Whether the whole system answers: NATS and every service (and its database); never rate-limited',
      security: [],
      responses: {
        200: { description: 'Every part answers', content: json(liveness(true)) },
        431: { description: 'The request headers are too large', content: json(failureSchemaFor(431)) },
        503: { description: 'Some part does not answer', content: json(liveness(false)) },
      },
    },
  };
  document.paths['/health/details'] = {
    get: {
      operationId: 'getHealthDetails',
      tags: ['Health'],
      summary: "Which part is down, the NATS round trip, each service's instance, the identity provider's keys (admin)",
      security: [{ bearerAuth: [] }],
      responses: {
        200: { description: 'Every part answers', content: json(report) },
        401: { description: 'No token, or a token refused', content: json(failureSchemaFor(401)) },
        403: {
          description: 'Not an admin',
          content: json(failureSchemaFor(403, ['FORBIDDEN'])),
        },
        503: { description: 'Some part does not answer', content: json(report) },
      },
    },
  };
}
