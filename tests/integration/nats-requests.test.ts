import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { NatsError, RequestStrategy, type NatsConnection } from 'nats';
import { startLocalInfrastructure, type Infrastructure } from '@clinic/devstack';
import { callServiceReply, connectNats, createLogger, requestReplies } from '@clinic/service-kit/internal';

// A request from the gateway to billing, on a real nats-server: the reply comes back as sent, and the request
// captures no stack trace of its caller (nats.js's requestMany builds one whatever noAsyncTraces says).
const dir = mkdtempSync(join(tmpdir(), 'clinic-nats-requests-'));
const log = createLogger('nats-requests-test', 'silent');
let infra: Infrastructure | undefined;
let gateway: NatsConnection | undefined;
let billing: NatsConnection | undefined;

beforeAll(async () => {
  infra = await startLocalInfrastructure({ dataDir: dir, logDir: join(dir, 'logs') });
  await infra.startNats();
  const { natsUrl, natsPasswords } = infra;
  gateway = await connectNats({ url: natsUrl, user: 'gateway', password: natsPasswords.gateway }, { name: 'gw', log });
  billing = await connectNats({ url: natsUrl, user: 'billing', password: natsPasswords.billing }, { name: 'bl', log });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await billing?.close();
  await infra?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('answers a request with the reply and leaves the stack trace limit as it found it', async () => {
  const sub = billing!.subscribe('billing.bill.get', {
    queue: 'billing',
    callback: (_err, msg) =>
      msg.respond(new TextEncoder().encode(`{"status":200,"body":${new TextDecoder().decode(msg.data)}}`)),
  });
  await billing!.flush();
  const before = Error.stackTraceLimit;
  const reply = await callServiceReply(gateway!, 'billing.bill.get', { params: { bill_id: '7' } } as never, {
    correlationId: 'c-1',
    timeoutMs: 2_000,
  });
  expect(new TextDecoder().decode(reply.data)).toBe('{"status":200,"body":{"params":{"bill_id":"7"}}}');
  expect(Error.stackTraceLimit).toBe(before);
  sub.unsubscribe();
});

it("builds no stack trace of the caller: an error carries none of this file's frames", async () => {
  const failed = await (async function askNobody() {
    const replies = await requestReplies(gateway!, 'billing.bill.history', new Uint8Array(), {
      maxWait: 2_000,
      strategy: RequestStrategy.Timer,
    });
    for await (const _ of replies) return null;
    return null;
  })().catch((err: unknown) => err);
  expect(failed).toBeInstanceOf(NatsError);
  expect((failed as NatsError).code).toBe('503');
  expect((failed as Error).stack).not.toMatch(/askNobody|nats-requests\.test/);
});

it('writes what one turn of the event loop sends in one write, every message in order', async () => {
  const received: string[] = [];
  const all = new Promise<void>((resolve) => {
    billing!.subscribe('billing.bill.get', {
      queue: 'billing',
      max: 20,
      callback: (_err, msg) => {
        received.push(new TextDecoder().decode(msg.data));
        if (received.length === 20) resolve();
      },
    });
  });
  await billing!.flush();
  // The socket under the gateway's connection (nats.js's internals), its writes counted.
  const socket = (gateway as unknown as { protocol: { transport: { socket: Socket } } }).protocol.transport.socket;
  let writes = 0;
  const counted = (name: '_write' | '_writev') => {
    const original = socket[name] as (...args: unknown[]) => void;
    socket[name] = ((...args: unknown[]) => {
      writes++;
      original.apply(socket, args);
    }) as never;
    return () => {
      socket[name] = original as never;
    };
  };
  const restore = [counted('_write'), counted('_writev')];
  try {
    // Twenty callbacks of one turn, each its own macrotask (as each HTTP request is the gateway's).
    for (let i = 0; i < 20; i++) setImmediate(() => gateway!.publish('billing.bill.get', `m${i}`));
    await all;
  } finally {
    for (const undo of restore) undo();
  }
  expect(received).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`));
  expect(writes).toBe(1);
});

it('writes what it holds when the connection closes in the turn that sent it', async () => {
  const { natsUrl, natsPasswords } = infra!;
  const sender = await connectNats(
    { url: natsUrl, user: 'gateway', password: natsPasswords.gateway },
    { name: 'gw2', log },
  );
  const last = new Promise<string>((resolve) => {
    billing!.subscribe('billing.bill.get', {
      queue: 'billing',
      max: 1,
      callback: (_err, msg) => resolve(new TextDecoder().decode(msg.data)),
    });
  });
  await billing!.flush();
  sender.publish('billing.bill.get', 'last');
  // nats.js hands the frame to the transport at the end of the microtask queue; the socket holds it until setImmediate.
  await Promise.resolve();
  await sender.close();
  expect(await last).toBe('last');
});
