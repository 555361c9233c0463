/**
 * nats.js's Node transport, writing what one turn of the event loop sends in one system call (corked until
 * setImmediate; why: docs/PERFORMANCE.md). The one file that uses nats.js internals: the version is pinned and
 * test/nats-internals.test.ts fails when what it extends changes.
 */
import type { Socket } from 'node:net';
import type { ConnectionOptions, NatsConnection } from 'nats';
import { NatsConnectionImpl, setTransportFactory } from 'nats/lib/nats-base-client/internal_mod';
import { NodeTransport, nodeResolveHost } from 'nats/lib/src/node_transport';

export class CoalescingTransport extends NodeTransport {
  /** The socket held since the first frame of this turn, until setImmediate. */
  private held: Socket | null = null;

  override send(frame: Uint8Array): void {
    const socket = this.socket as Socket | undefined;
    if (this.held === null && socket && !this.isClosed) {
      this.held = socket;
      socket.cork();
      setImmediate(() => this.release(socket));
    }
    super.send(frame);
  }

  /** Writes what is held first: nats.js destroys the socket as soon as it closes it. */
  override close(err?: Error): Promise<void> {
    if (this.held) this.release(this.held);
    return super.close(err);
  }

  private release(socket: Socket): void {
    if (this.held !== socket) return;
    this.held = null;
    socket.uncork();
  }
}

/** nats.js's `connect` (its transport factory is the base client's extension point), on CoalescingTransport. */
export function connect(options: ConnectionOptions): Promise<NatsConnection> {
  setTransportFactory({ factory: () => new CoalescingTransport(), dnsResolveFn: nodeResolveHost });
  return NatsConnectionImpl.connect(options);
}
