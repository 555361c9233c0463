/**
 * A JetStream stream's snapshot and its restore, over the server's own API
 * (`$JS.API.STREAM.SNAPSHOT`, `$JS.API.STREAM.RESTORE`), as `nats stream
 * backup` and `nats stream restore` do, so that no second tool has to be
 * built: the server writes the stream (messages, sequences and, unless told
 * not to, its consumers' state) as one archive in chunks, each acknowledged.
 */
import { createInbox, Empty, type NatsConnection } from 'nats';

export interface StreamSnapshot {
  /** The stream's configuration and state when the snapshot was taken. */
  config: Record<string, unknown> & { name: string };
  state: Record<string, unknown>;
  /** The server's archive, as it sent it. */
  data: Buffer;
}

interface ApiError {
  error?: { code: number; description: string };
}

const CHUNK_BYTES = 128 * 1024;

function check<T extends ApiError>(what: string, reply: T): T {
  if (reply.error) throw new Error(`${what}: ${reply.error.description} (${reply.error.code})`);
  return reply;
}

/** The whole stream as an archive; `withConsumers: false` leaves the consumers out. */
export async function snapshotStream(
  nc: NatsConnection,
  stream: string,
  options: { withConsumers: boolean; inboxPrefix?: string },
): Promise<StreamSnapshot> {
  const deliver = createInbox(options.inboxPrefix);
  const chunks: Buffer[] = [];
  const sub = nc.subscribe(deliver);
  const received = (async () => {
    for await (const m of sub) {
      if (m.data.length === 0) {
        // The end: no header, or status 204, when the server sent everything; else its error.
        const code = m.headers?.code ?? 0;
        if (code !== 0 && code !== 204)
          throw new Error(`snapshot of ${stream} ended: ${code} ${m.headers?.description}`);
        return;
      }
      chunks.push(Buffer.from(m.data));
      // Each chunk but the last carries the subject its acknowledgement goes to (flow control).
      if (m.reply) nc.publish(m.reply, Empty);
    }
  })();
  try {
    const reply = await nc.request(
      `$JS.API.STREAM.SNAPSHOT.${stream}`,
      JSON.stringify({ deliver_subject: deliver, no_consumers: !options.withConsumers, chunk_size: CHUNK_BYTES }),
      { timeout: 30_000 },
    );
    const answer = check(`snapshot of ${stream}`, reply.json<ApiError & Omit<StreamSnapshot, 'data'>>());
    await received;
    return { config: answer.config, state: answer.state, data: Buffer.concat(chunks) };
  } finally {
    sub.unsubscribe();
  }
}

/** Creates the stream from its snapshot (it must not exist), sending the archive chunk by chunk. */
export async function restoreStream(nc: NatsConnection, snapshot: StreamSnapshot): Promise<void> {
  const { name } = snapshot.config;
  const opened = check(
    `restore of ${name}`,
    (
      await nc.request(
        `$JS.API.STREAM.RESTORE.${name}`,
        JSON.stringify({ config: snapshot.config, state: snapshot.state }),
        { timeout: 30_000 },
      )
    ).json<ApiError & { deliver_subject: string }>(),
  );
  for (let offset = 0; offset < snapshot.data.length; offset += CHUNK_BYTES) {
    const reply = await nc.request(opened.deliver_subject, snapshot.data.subarray(offset, offset + CHUNK_BYTES), {
      timeout: 30_000,
    });
    if (reply.data.length > 0) check(`restore of ${name}`, reply.json<ApiError>());
  }
  // An empty chunk ends the transfer; the answer is the restored stream's info.
  const done = await nc.request(opened.deliver_subject, Empty, { timeout: 120_000 });
  check(`restore of ${name}`, done.json<ApiError>());
}
