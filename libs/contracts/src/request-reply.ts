/**
 * Every request/reply subject the services answer, with what its request
 * carries and what it answers by status: the routes' subjects (from the
 * route table) and the ones answered for other services and operators. The
 * AsyncAPI document (asyncapi.ts) and the tests of the envelopes read them.
 */
import { BRANCH_SCOPE_RULES, SESSION_WRITE_SUBJECTS, type BranchScopeRule } from './access';
import { HTTP_ROUTES, type HttpRoute } from './routes';
import { chargeCheckBodySchema, chargeCheckReplySchema } from './schemas/catalogue';
import {
  balancesBodySchema,
  balancesReplySchema,
  cancelReplySchema,
  channelingQuerySchema,
  channelingReplySchema,
  reasonBodySchema,
} from './schemas/channeling';
import { approvalReplies, releaseApprovalBodySchema, useApprovalBodySchema } from './schemas/approvals';
import { successSchema, type JsonSchema } from './schemas/common';
import { failureSchemaFor, standardFailures } from './schemas/failures';
import { REF_STREAM } from './streams';
import {
  BillingSubjects,
  CatalogueSubjects,
  SERVICE_NAMES,
  ServiceSubjects,
  SessionsSubjects,
  serviceOf,
  type ServiceName,
} from './subjects';

/** One request/reply subject: what its request carries and what it answers, by status. */
export interface RequestReplySpec {
  subject: string;
  service: ServiceName;
  summary: string;
  /** How it keeps to the branches of a token with `store_ids`; absent where it acts for no user. */
  branchScope?: BranchScopeRule;
  /** The envelope's members: each one present in the schema may be sent. */
  params?: JsonSchema;
  query?: JsonSchema;
  body?: JsonSchema;
  bodyRequired?: boolean;
  replies: Record<string, JsonSchema>;
}

/**
 * Query values travel as the text the client wrote (the service parses and
 * checks them), so each becomes a string documented with the type it must read as.
 */
function queryEnvelope(query: JsonSchema): JsonSchema {
  const properties = Object.fromEntries(
    Object.entries((query.properties ?? {}) as Record<string, JsonSchema>).map(([name, schema]) => {
      const readAs = [schema.type, schema.format].filter(Boolean).join(', ');
      const note = [schema.description, readAs && `read as ${readAs}`].filter(Boolean).join('; ');
      return [
        name,
        { anyOf: [{ type: 'string' }, { type: 'array', maxItems: 20, items: { type: 'string' } }], description: note },
      ];
    }),
  );
  return { type: 'object', properties, ...(query.required ? { required: query.required } : {}) };
}

/** A path id travels as the text the client wrote, as a query value does. */
function pathIdText(name: string): JsonSchema {
  return {
    type: 'object',
    required: [name],
    properties: {
      [name]: {
        type: 'string',
        maxLength: 100,
        description: 'the path id as the client wrote it; one that is not a positive integer is not found',
      },
    },
  };
}

function fromRoute(route: HttpRoute): RequestReplySpec {
  return {
    subject: route.subject,
    service: serviceOf(route.subject)!,
    summary: `${route.summary} (HTTP: ${route.method} ${route.url})`,
    branchScope: route.branchScope,
    params: route.param ? pathIdText(route.param) : undefined,
    query: route.querystring ? queryEnvelope(route.querystring) : undefined,
    body: route.body,
    bodyRequired: Boolean(route.body && !route.bodyOptional),
    replies: route.produces ? { ...route.responses, 200: producedReply(route) } : route.responses,
  };
}

/** A route's success that may be bytes: only them, or, when a query asks for them, them or its JSON. */
function producedReply(route: HttpRoute): JsonSchema {
  const bytes = binaryReplySchema(route.produces!);
  const json = route.responses[200];
  return route.producesWhen && json ? { oneOf: [json, bytes] } : bytes;
}

/** The success of a route that produces bytes: they travel base64-encoded in the envelope (the gateway sends them as they are). */
function binaryReplySchema(contentType: string): JsonSchema {
  return {
    type: 'object',
    required: ['success', 'content_type', 'filename', 'data_base64'],
    properties: {
      success: { type: 'boolean', enum: [true] },
      content_type: { type: 'string', enum: [contentType] },
      filename: { type: 'string', description: 'suggested file name' },
      data_base64: {
        type: 'string',
        contentEncoding: 'base64',
        description: `the ${contentType} bytes, base64-encoded`,
      },
    },
  };
}

const healthReply = successSchema({
  service: { type: 'string', enum: [...SERVICE_NAMES] },
  status: { type: 'string', enum: ['ok'] },
  instance: { type: 'string', description: 'host and process id of the replica that answered' },
  outbox_queue: { type: 'integer', minimum: 0, description: 'events this replica holds for publication' },
});

const refStatusReply = successSchema({
  service: { type: 'string', enum: [...SERVICE_NAMES] },
  applied_seq: {
    type: 'integer',
    minimum: 0,
    description: `highest ${REF_STREAM.name} sequence up to which every message is applied`,
  },
  pending: { type: 'integer', minimum: 0 },
});

/** Subjects answered for other services and operators rather than for HTTP routes. */
function internalSpecs(): RequestReplySpec[] {
  const perService = SERVICE_NAMES.flatMap((service): RequestReplySpec[] => [
    {
      subject: ServiceSubjects[service].health,
      service,
      summary: `Whether a ${service} replica and its database answer (no caller needed)`,
      replies: { 200: healthReply, 503: failureSchemaFor(503) },
    },
    {
      subject: ServiceSubjects[service].refStatus,
      service,
      summary: `How far ${service} has applied the reference stream ${REF_STREAM.name} (no caller needed)`,
      replies: { 200: refStatusReply, 500: failureSchemaFor(500) },
    },
  ]);
  const check: RequestReplySpec = {
    subject: CatalogueSubjects.check,
    service: 'catalogue',
    branchScope: 'named',
    summary:
      "Billing's check of a bill's charges: which of these ids cannot be billed in this store (inactive, deleted, unknown or of another store), and the current amount of the others",
    body: chargeCheckBodySchema,
    bodyRequired: true,
    replies: { 200: chargeCheckReplySchema, ...standardFailures() },
  };
  const channeling: RequestReplySpec[] = [
    {
      subject: BillingSubjects.appointmentBalances,
      service: 'billing',
      branchScope: 'record',
      summary: "Sessions' question when it shows appointments: what each was paid and refunded",
      body: balancesBodySchema,
      bodyRequired: true,
      replies: { 200: balancesReplySchema, ...standardFailures() },
    },
    {
      subject: SessionsSubjects.channeling,
      service: 'sessions',
      branchScope: 'record',
      summary:
        "Billing's question before it moves an appointment's money or settles a session: the session and its appointments as stored",
      query: queryEnvelope(channelingQuerySchema),
      replies: { 200: channelingReplySchema, ...standardFailures(404) },
    },
    {
      subject: SessionsSubjects.cancelAppointment,
      service: 'sessions',
      branchScope: 'record',
      summary: "Billing's cancellation of an appointment (DELETE /appointments/{id}), before it refunds what it holds",
      params: pathIdText('appointment_id'),
      body: reasonBodySchema,
      bodyRequired: true,
      replies: { 200: cancelReplySchema, ...standardFailures(400, 404) },
    },
  ];
  const approvals: RequestReplySpec[] = [
    {
      subject: BillingSubjects.useApproval,
      service: 'billing',
      branchScope: 'named',
      summary:
        "Catalogue's use of an approval (APPROVE_CATALOGUE_CHANGES): checked against what the change needs, then marked used",
      body: useApprovalBodySchema,
      bodyRequired: true,
      replies: { 200: approvalReplies.changed, ...standardFailures(404, 409) },
    },
    {
      subject: BillingSubjects.releaseApproval,
      service: 'billing',
      branchScope: 'record',
      summary: 'Catalogue gives an approval back when the change it was used for was refused after all',
      body: releaseApprovalBodySchema,
      bodyRequired: true,
      replies: { 200: approvalReplies.changed, ...standardFailures(404, 409) },
    },
  ];
  return [...perService, check, ...channeling, ...approvals];
}

/** What a subject's documentation says of branch scope (OpenAPI and AsyncAPI alike). */
export function branchScopeNote(rule: BranchScopeRule): string {
  return `Branch scope: with a token carrying \`store_ids\`, it ${BRANCH_SCOPE_RULES[rule]}.`;
}

/** What an operation's documentation says beyond its summary: its branch scope, and who may write sessions. */
export function accessNote(subject: string, rule: BranchScopeRule): string {
  const writers = SESSION_WRITE_SUBJECTS.includes(subject)
    ? ' Roles: any valid token, unless the deployment names the roles that may write sessions (SESSION_WRITE_ROLES).'
    : '';
  return `${branchScopeNote(rule)}${writers}`;
}

/** Every request/reply subject the services answer. */
export function requestReplySpecs(): RequestReplySpec[] {
  return [...HTTP_ROUTES.map(fromRoute), ...internalSpecs()];
}

/** The request envelope `{ params?, query?, body? }` of a subject. */
export function requestEnvelopeSchema(spec: RequestReplySpec): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  if (spec.params) {
    properties.params = spec.params;
    required.push('params');
  }
  if (spec.query) properties.query = spec.query;
  if (spec.body) {
    properties.body = spec.body;
    if (spec.bodyRequired) required.push('body');
  }
  return { type: 'object', additionalProperties: false, properties, ...(required.length ? { required } : {}) };
}

/** The reply `{ status, body }`: each status with the body it comes with. */
export function replyEnvelopeSchema(spec: RequestReplySpec): JsonSchema {
  return {
    type: 'object',
    required: ['status', 'body'],
    anyOf: Object.entries(spec.replies).map(([status, body]) => ({
      properties: { status: { type: 'integer', enum: [Number(status)] }, body },
    })),
    properties: {
      status: { type: 'integer', enum: Object.keys(spec.replies).map(Number) },
      etag: {
        type: 'string',
        description:
          "on the read of one bill, charge or session: the strong entity tag of `body`; send it as the `if-match` header of the record's update or delete",
      },
      body: { type: 'object' },
    },
  };
}
