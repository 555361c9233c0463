/**
 * The AsyncAPI 3.1 document of every NATS subject, generated from the same
 * contracts as the gateway's routes, the OpenAPI document and the NATS
 * permissions, so it cannot drift from them: the request/reply operations
 * (request envelope and reply schemas by status), the reference-data subjects
 * other hospital systems publish, and the event streams they read.
 */
import { Limits } from './limits';
import { EVENT_DATA_SCHEMAS, eventSchema } from './events';
import { HeaderNames } from './envelope';
import { errorCodeTable } from './error-codes';
import { DELETION_MARKER_SCHEMA, REF_RECORD_SCHEMAS } from './reference';
import { HTTP_ROUTES } from './routes';
import { accessNote, replyEnvelopeSchema, requestEnvelopeSchema, requestReplySpecs } from './request-reply';
import type { JsonSchema } from './schemas/common';
import { eventStreamOf, REF_KINDS, REF_STREAM, refSubject, REF_KINDS_BY_SERVICE } from './streams';
import { SERVICE_NAMES, type EventSubject, type ServiceName } from './subjects';

/**
 * The schemas are written in the OpenAPI 3.0 dialect (`nullable`, `example`);
 * AsyncAPI's schema format is JSON Schema draft 07, so those two are rewritten.
 */
export function toJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (key === 'nullable' || key === 'example') continue;
    out[key] = key === 'enum' || key === 'required' ? value : toJsonSchema(value);
  }
  const source = schema as Record<string, unknown>;
  if (source.example !== undefined) out.examples = [source.example];
  if (source.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    if (out.anyOf) out.anyOf = [...(out.anyOf as unknown[]), { type: 'null' }];
  }
  return out;
}

const text = (description: string): JsonSchema => ({ type: 'string', description });

/** The subjects whose routes answer a retry with the same Idempotency-Key with the first result. */
const KEYED_SUBJECTS = HTTP_ROUTES.filter((route) => route.idempotent)
  .map((route) => route.subject)
  .join(', ');

const requestHeaders: JsonSchema = {
  type: 'object',
  properties: {
    [HeaderNames.correlationId]: text(
      'carried to every log line of the request, and into its events; 1-100 of A-Z a-z 0-9 . _ : -',
    ),
    [HeaderNames.authorization]: text(
      `"Bearer <JWT>": the user's own token, which the service verifies (sub, role, exp, and optionally store_ids, the branches it is limited to; at most ${Limits.tokenMaxLength} characters); health and ref.status need none. With BRANCH_SCOPE=required, a token of a role other than admin without store_ids is refused (403)`,
    ),
    [HeaderNames.deadline]: text(
      'epoch milliseconds after which the requester no longer waits: the request is then dropped unprocessed',
    ),
    [HeaderNames.idempotencyKey]: text(
      `${KEYED_SUBJECTS}: a retried request returns the first result instead of making a second (1-${Limits.idempotencyKeyMaxLength} visible ASCII characters)`,
    ),
    [HeaderNames.ifMatch]: text(
      "the update or delete of a bill, a charge or a session: the etag(s) of the record's read; 412 PRECONDITION_FAILED when it changed since",
    ),
    traceparent: text('W3C trace context: the service continues this trace'),
    tracestate: text('W3C trace context'),
  },
};

const replyHeaders: JsonSchema = {
  type: 'object',
  properties: {
    [HeaderNames.correlationId]: text("the request's correlation id"),
    [HeaderNames.chunkCount]: text(
      'on a reply larger than one NATS message: how many messages it comes in (join them in order)',
    ),
    [HeaderNames.chunkIndex]: text('on a reply larger than one NATS message: which one this is, from 0'),
    [HeaderNames.cacheScopes]: text(
      "on a 200 of a hot read: the cache scopes the answer depends on with the versions it read them at (`scope=version`, comma-separated), for the gateway's reply cache",
    ),
  },
};

const eventHeaders: JsonSchema = {
  type: 'object',
  properties: {
    'Nats-Msg-Id': text('equals event_id: JetStream drops a republished duplicate, readers can too'),
    [HeaderNames.correlationId]: text('of the request that made the change'),
    traceparent: text('W3C trace context of the publication, child of the request that made the change'),
    tracestate: text('W3C trace context'),
  },
};

const SERVICE_TAG = (service: ServiceName) => ({ name: service });

export interface AsyncApiOptions {
  /** The NATS server's host:port as clients reach it. */
  natsHost?: string;
}

/** The AsyncAPI 3.1 document, as a JSON-ready object. */
export function asyncApiDocument(options: AsyncApiOptions = {}): Record<string, unknown> {
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  const ref = (path: string) => ({ $ref: path });

  for (const spec of requestReplySpecs()) {
    const id = spec.subject;
    const replyId = `${id}.reply`;
    const message = (kind: 'request' | 'reply', headers: JsonSchema, payload: JsonSchema) => ({
      name: `${id}.${kind}`,
      title: `${id} ${kind}`,
      contentType: 'application/json',
      headers: toJsonSchema(headers),
      payload: toJsonSchema(payload),
    });
    messages[`${id}.request`] = message('request', requestHeaders, requestEnvelopeSchema(spec));
    messages[`${id}.reply`] = message('reply', replyHeaders, replyEnvelopeSchema(spec));
    channels[id] = {
      address: spec.subject,
      title: spec.subject,
      description: `Requests to ${spec.service}; answered by one replica (queue group ${spec.service}).`,
      messages: { request: ref(`#/components/messages/${id}.request`) },
    };
    channels[replyId] = {
      address: null,
      title: `${spec.subject} reply`,
      description: "The requester's inbox: the NATS reply subject of the request.",
      messages: { reply: ref(`#/components/messages/${id}.reply`) },
    };
    operations[id] = {
      action: 'receive',
      title: spec.subject,
      summary: spec.summary,
      ...(spec.branchScope ? { description: accessNote(spec.subject, spec.branchScope) } : {}),
      channel: ref(`#/channels/${id}`),
      messages: [ref(`#/channels/${id}/messages/request`)],
      reply: { channel: ref(`#/channels/${replyId}`), messages: [ref(`#/channels/${replyId}/messages/reply`)] },
      bindings: { nats: { queue: spec.service, bindingVersion: '0.1.0' } },
      tags: [SERVICE_TAG(spec.service)],
    };
  }

  /** A subject carrying one kind of message, and what the clinic back end does with it. */
  const addSubject = (
    subject: string,
    spec: {
      message: Record<string, unknown>;
      description: string;
      action: 'send' | 'receive';
      summary: string;
      services: ServiceName[];
    },
  ) => {
    messages[subject] = { name: subject, contentType: 'application/json', ...spec.message };
    channels[subject] = {
      address: subject,
      title: subject,
      description: spec.description,
      messages: { message: ref(`#/components/messages/${subject}`) },
    };
    operations[subject] = {
      action: spec.action,
      title: subject,
      summary: spec.summary,
      channel: ref(`#/channels/${subject}`),
      messages: [ref(`#/channels/${subject}/messages/message`)],
      tags: spec.services.map(SERVICE_TAG),
    };
  };

  for (const kind of REF_KINDS) {
    const keptBy = SERVICE_NAMES.filter((s) => REF_KINDS_BY_SERVICE[s].includes(kind));
    addSubject(refSubject(kind), {
      message: {
        title: `${kind} record`,
        summary: `One whole ${kind} record to upsert, or a deletion marker {"id": 12, "deleted": true}`,
        payload: toJsonSchema({ oneOf: [REF_RECORD_SCHEMAS[kind], DELETION_MARKER_SCHEMA] }),
      },
      description: `Reference ${kind}s from other hospital systems, stored on the JetStream stream ${REF_STREAM.name}. Fields beyond these are ignored.`,
      action: 'receive',
      summary: keptBy.length
        ? `Applied by ${keptBy.join(' and ')} (each with its durable consumer) to its own read model`
        : 'Published by hospital systems; no service keeps this kind yet',
      services: keptBy,
    });
  }

  for (const service of SERVICE_NAMES) {
    const stream = eventStreamOf(service);
    for (const subject of stream.subjects as EventSubject[]) {
      addSubject(subject, {
        message: {
          title: `${subject} event`,
          summary: `The ${Object.keys(EVENT_DATA_SCHEMAS[subject].properties as object)[0]} as it is after the change`,
          headers: toJsonSchema(eventHeaders),
          payload: toJsonSchema(eventSchema(subject)),
        },
        description: `Stored on the JetStream stream ${stream.name}; read it with a durable consumer.`,
        action: 'send',
        summary: `Published by ${service} through its outbox once the change is stored`,
        services: [service],
      });
    }
  }

  return {
    asyncapi: '3.1.0',
    info: {
      title: 'Clinic back end over NATS',
      version: '1.0.0',
      description:
        'Every NATS subject of the clinic back end. Requests are request-reply in the envelope `{ params?, query?, body? }`, ' +
        'answered `{ status, body }` by one replica of the service (its queue group). Reference data from other hospital ' +
        `systems arrives on \`${REF_STREAM.name}\`; each service's events are stored on its own JetStream stream.\n\n` +
        "A failure's body is `{success: false, error, code, field?}`: `error` the text, `code` one of this table " +
        '(each reply lists the codes of its status), `field` the request field at fault (`items[0].qty`).\n\n' +
        errorCodeTable(),
      contact: { name: 'Clinic back end maintainers' },
      license: { name: 'UNLICENSED' },
      tags: SERVICE_NAMES.map((s) => ({ name: s, description: `the ${s} service` })),
    },
    defaultContentType: 'application/json',
    servers: {
      local: {
        host: options.natsHost ?? 'localhost:4222',
        protocol: 'nats',
        description:
          'npm start: NATS with JetStream on loopback (NATS_TLS=1: TLS, verified against DATA_DIR/tls/ca.crt); every client authenticates as its own user with the permissions in deploy/nats/nats.conf.',
        security: [{ $ref: '#/components/securitySchemes/userPassword' }],
      },
      ...Object.fromEntries(
        [1, 2, 3].map((n) => [
          `compose-nats-${n}`,
          {
            host: `nats-${n}:4222`,
            protocol: 'nats',
            description: `docker compose: node ${n} of the three-node cluster, TLS only (the CA of npm run certs); other hospital systems reach it with deploy/compose.hospital-nats.yml`,
            security: [
              { $ref: '#/components/securitySchemes/userPassword' },
              { $ref: '#/components/securitySchemes/tls' },
            ],
          },
        ]),
      ),
    },
    channels,
    operations,
    components: {
      messages,
      securitySchemes: {
        userPassword: {
          type: 'userPassword',
          description:
            'One NATS user per process kind and per outside system, each with its own password (DATA_DIR/nats-<user>-password under npm start; NATS_<USER>_PASSWORD in compose) and only the subjects of docs/nats.md.',
        },
        tls: {
          type: 'X509',
          description: "TLS: clients verify the servers against the installation's CA; plaintext clients are refused.",
        },
      },
    },
  };
}
