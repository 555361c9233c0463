/** What the responder reads from a request message: the envelope, its headers, and whether it is a request at all. */
import type { Msg, MsgHdrs } from 'nats';
import {
  HeaderNames,
  IDEMPOTENCY_KEY_PATTERN,
  IF_MATCH_MAX_LENGTH,
  Limits,
  REQUEST_MESSAGES,
  type ErrorCode,
  TOO_DEEP_MESSAGE,
  type ServiceRequest,
} from '@clinic/contracts';
import { fail } from '../domain/errors';
import { compileSchema } from '../domain/schema';
import { parseStrictJson, type StrictJsonProblem } from '../domain/strict-json';

const requestEnvelopeSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    params: { type: 'object', additionalProperties: { type: 'string', maxLength: 100 } },
    query: {
      type: 'object',
      additionalProperties: {
        anyOf: [{ type: 'string' }, { type: 'array', maxItems: 20, items: { type: 'string' } }],
      },
    },
    body: {},
  },
};

const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,100}$/;

export function readCorrelationId(value: string | undefined): string | undefined {
  return value && CORRELATION_ID.test(value) ? value : undefined;
}

/** The request's `Idempotency-Key`, bounded as the gateway bounds it. */
export function readIdempotencyKey(h: MsgHdrs | undefined): string | null {
  const key = h?.get(HeaderNames.idempotencyKey);
  if (!key) return null;
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) throw fail('IDEMPOTENCY_KEY_INVALID');
  return key;
}

/** The If-Match header (HeaderNames.ifMatch): null when absent; 400 when longer than a few ETags. */
export function readIfMatch(h: MsgHdrs | undefined): string | null {
  const value = h?.get(HeaderNames.ifMatch);
  if (!value) return null;
  if (value.length > IF_MATCH_MAX_LENGTH) throw fail('IF_MATCH_INVALID');
  return value;
}

/**
 * Whether a message is a JetStream delivery rather than a request: pushed or
 * pulled stream messages keep their stream subject and carry an acknowledgement
 * subject as their reply. A consumer pointed at a service's subject (by its deliver
 * subject, or a pull request's reply subject) must never have its messages run.
 */
export function isStreamDelivery(msg: Msg, subject: string): boolean {
  return msg.subject !== subject || Boolean(msg.reply?.startsWith('$JS.'));
}

const UNREADABLE_REQUEST: Record<StrictJsonProblem, [Exclude<ErrorCode, 'VALIDATION_FAILED'>, string]> = {
  invalid: ['INVALID_JSON', REQUEST_MESSAGES.invalidJson],
  poisoned: ['BODY_FORBIDDEN_KEYS', REQUEST_MESSAGES.poisoned],
  'too deep': ['BODY_TOO_DEEP', TOO_DEEP_MESSAGE],
};

export function decodeRequest(data: Uint8Array): ServiceRequest {
  // The envelope adds one level around the body.
  const parsed = parseStrictJson(Buffer.from(data), Limits.jsonDepthMax + 1);
  if (!parsed.ok) throw fail(...UNREADABLE_REQUEST[parsed.problem]);
  if (!compileSchema(requestEnvelopeSchema)(parsed.value)) throw fail('BAD_ENVELOPE');
  return parsed.value as ServiceRequest;
}
