/**
 * nats.js's Node transport, writing what one turn of the event loop sends in
 * one system call.
 *
 * nats.js writes its outbound buffer at the end of each microtask queue, so a
 * gateway under load wrote once per request (each HTTP request is a callback
 * of its own), and a service once per reply. On loopback a write also runs
 * the server's receive path: in a profile of payments at 64 connections, those
 * writes took 22% of the gateway's CPU. Held with cork() until setImmediate,
 * the frames of the callbacks that ran in one poll go out together (writev).
 *
 * nats.js's `connect` installs its own transport factory; `connect` here is
 * the same three lines with this transport (the factory is the documented
 * extension point of its base client). The deep imports hold for the 2.x line.
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

/** nats.js's `connect`, on CoalescingTransport. */
export function connect(options: ConnectionOptions): Promise<NatsConnection> {
  setTransportFactory({ factory: () => new CoalescingTransport(), dnsResolveFn: nodeResolveHost });
  return NatsConnectionImpl.connect(options);
}
