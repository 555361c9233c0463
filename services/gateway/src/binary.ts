import type { FastifyReply } from 'fastify';
import type { BinaryReplyBody } from '@clinic/contracts';

const FILENAME = /^[\w.-]{1,100}$/;

function isBinaryReply(value: unknown): value is BinaryReplyBody {
  const body = value as Partial<BinaryReplyBody> | null;
  return body?.success === true && typeof body.content_type === 'string' && typeof body.data_base64 === 'string';
}

/**
 * A success of a route that produces bytes (HttpRoute.produces): the service
 * sent them base64-encoded in the envelope, the client gets them as they are.
 * Returns null for anything else (a failure envelope), which goes out as JSON.
 */
export function sendBinary(reply: FastifyReply, produces: string, body: Uint8Array): FastifyReply | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    return null;
  }
  if (!isBinaryReply(parsed) || parsed.content_type !== produces) return null;
  if (FILENAME.test(parsed.filename)) reply.header('content-disposition', `inline; filename="${parsed.filename}"`);
  return reply.type(produces).send(Buffer.from(parsed.data_base64, 'base64'));
}
