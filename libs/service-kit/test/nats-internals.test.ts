/**
 * The nats.js internals that nats/coalescing-transport.ts extends, checked without a server: the installed
 * client is the pinned one, its own `connect` installs the transport ours replaces, and the transport still
 * writes through the fields CoalescingTransport holds. When a raised nats.js fails here, review the adapter
 * (and the 'writes what one turn...' cases of tests/integration/nats-requests.test.ts).
 */
import type { Socket } from 'node:net';
import { CoalescingTransport } from '../src/nats/coalescing-transport';
import { pinOf } from './library-internals';

const internals = require('nats/lib/nats-base-client/internal_mod') as {
  NatsConnectionImpl: { connect: unknown };
  setTransportFactory: unknown;
  getResolveFn(): unknown;
};
const { newTransport } = require('nats/lib/nats-base-client/transport') as { newTransport(): unknown };
const { NodeTransport, nodeResolveHost } = require('nats/lib/src/node_transport') as {
  NodeTransport: new () => unknown;
  nodeResolveHost: unknown;
};

/** A socket that records what is written to it, its corks and its end. */
function recordingSocket() {
  const events: string[] = [];
  const socket = {
    cork: () => events.push('cork'),
    uncork: () => events.push('uncork'),
    removeAllListeners: () => undefined,
    destroy: () => events.push('destroy'),
    write: (frame: Uint8Array, done: (err?: Error) => void) => {
      events.push(`write ${new TextDecoder().decode(frame)}`);
      done();
      return true;
    },
  };
  return { events, socket: socket as unknown as Socket };
}

/** A transport as nats.js leaves it once connected: its socket and options set, not closed. */
function connectedTransport(socket: Socket): CoalescingTransport {
  const transport = new CoalescingTransport();
  Object.assign(transport, { socket, options: {}, connected: true });
  return transport;
}

it('is the nats.js version pinned in libs/service-kit/package.json', () => {
  expect(pinOf('nats')).toMatchObject({ exact: true, installedIsPinned: true });
});

it('exports the internals the adapter imports', () => {
  expect(typeof internals.NatsConnectionImpl.connect).toBe('function');
  expect(typeof internals.setTransportFactory).toBe('function');
  expect(typeof nodeResolveHost).toBe('function');
  for (const method of ['send', 'close']) {
    expect(typeof (NodeTransport.prototype as Record<string, unknown>)[method]).toBe('function');
  }
  expect(Object.getOwnPropertyDescriptor(NodeTransport.prototype, 'isClosed')?.get).toBeInstanceOf(Function);
  expect(new CoalescingTransport()).toBeInstanceOf(NodeTransport);
});

it("installs, in nats.js's own connect, the factory and resolver ours replaces", async () => {
  const { connect } = require('nats') as { connect(options: object): Promise<unknown> };
  // Nothing listens on port 1: the connection fails, after connect has installed its transport factory.
  await expect(connect({ servers: '127.0.0.1:1', reconnect: false, timeout: 200 })).rejects.toThrow();
  expect(newTransport()).toBeInstanceOf(NodeTransport);
  expect(newTransport()).not.toBeInstanceOf(CoalescingTransport);
  expect(internals.getResolveFn()).toBe(nodeResolveHost);
});

it('sends the frames of one turn corked, in order, and uncorks on the next', async () => {
  const { events, socket } = recordingSocket();
  const transport = connectedTransport(socket);
  for (const frame of ['a', 'b', 'c']) transport.send(new TextEncoder().encode(frame));
  expect(events).toEqual(['cork', 'write a', 'write b', 'write c']);
  await new Promise((resolve) => setImmediate(resolve));
  expect(events).toEqual(['cork', 'write a', 'write b', 'write c', 'uncork']);
});

it('uncorks what it holds when closed in the turn that sent it', async () => {
  const { events, socket } = recordingSocket();
  const transport = connectedTransport(socket);
  transport.send(new TextEncoder().encode('last'));
  await transport.close();
  // nats.js destroys the socket on close: what was held must be written first.
  expect(events).toEqual(['cork', 'write last', 'uncork', 'destroy']);
  expect(transport.isClosed).toBe(true);
});
