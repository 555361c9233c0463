import { headers as natsHeaders, type Msg } from 'nats';
import { failure, HeaderNames, REPLY_TOO_LARGE_MESSAGE, type ServiceReply } from '@clinic/contracts';

/**
 * A reply serialized once and sent as it is to every caller: for cached reads,
 * where serializing a large body per request cost more than finding it.
 */
export class EncodedReply {
  readonly status: number;
  readonly encoded: Uint8Array;

  constructor(reply: ServiceReply) {
    this.status = reply.status;
    this.encoded = new TextEncoder().encode(JSON.stringify(reply));
  }
}

/** Room left in each message for its headers. */
const HEADER_ROOM_BYTES = 4096;

/**
 * Sends a reply, in as many messages as the server's max_payload requires
 * (at most `maxChunks`, each with its index and the count in headers), and
 * returns how many it took; 0 when the reply is too large, in which case the
 * caller gets a 413 in the envelope instead.
 */
export function respondInChunks(
  msg: Msg,
  encoded: Uint8Array,
  correlationId: string,
  maxChunks: number,
  maxPayload = 1024 * 1024,
  extraHeaders: Record<string, string> = {},
): number {
  const chunkSize = Math.max(1024, maxPayload - HEADER_ROOM_BYTES);
  const count = Math.ceil(encoded.length / chunkSize) || 1;
  if (count > maxChunks) {
    const h = natsHeaders();
    h.set(HeaderNames.correlationId, correlationId);
    msg.respond(new TextEncoder().encode(JSON.stringify(failure(413, REPLY_TOO_LARGE_MESSAGE, 'REPLY_TOO_LARGE'))), {
      headers: h,
    });
    return 0;
  }
  for (let i = 0; i < count; i++) {
    const h = natsHeaders();
    h.set(HeaderNames.correlationId, correlationId);
    for (const [name, value] of Object.entries(extraHeaders)) h.set(name, value);
    if (count > 1) {
      h.set(HeaderNames.chunkCount, String(count));
      h.set(HeaderNames.chunkIndex, String(i));
    }
    msg.respond(encoded.subarray(i * chunkSize, (i + 1) * chunkSize), { headers: h });
  }
  return count;
}
