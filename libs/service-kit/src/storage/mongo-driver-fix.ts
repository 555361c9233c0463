import { MongoNetworkError, type MongoClient } from 'mongodb';

/**
 * Works around a hang in the MongoDB Node.js driver (seen in 6.22; 7.9 has the
 * same code). When the database goes away, a connection's socket is destroyed
 * and its 'close' event follows on a later tick. A command written in between
 * finds `connection.closed` still false; `socket.write` on the destroyed
 * socket returns false and the driver waits for a 'drain' event that never
 * comes, while the 'close' handler has no reader to fail. On the server
 * monitor's connection this stops monitoring for good: the server stays
 * Unknown and every operation fails server selection until the process
 * restarts (the fault suite caught one billing replica answering 500 for the
 * rest of its life after a database restart). On a pooled connection the
 * operation hangs and its pool slot is lost.
 *
 * The fix fails such a write as a network error once the socket closes (or at
 * once if it already has), which the driver then handles like any other
 * network error: the heartbeat fails and monitoring goes on.
 */
interface DriverConnection {
  id: number | string;
  address: string;
  closed: boolean;
  error?: Error;
  socket: NodeJS.EventEmitter;
  writeCommand(command: unknown, options: unknown): Promise<void>;
}

const PATCHED = Symbol.for('clinic.mongodb.writeCommandFailsOnClose');

export function installMongoDriverFix(): void {
  const { Connection } = require('mongodb/lib/cmap/connection') as {
    Connection?: { prototype: DriverConnection & { [PATCHED]?: true } };
  };
  const proto = Connection?.prototype;
  if (!proto || typeof proto.writeCommand !== 'function') {
    throw new Error(
      'mongodb driver internals changed (Connection.prototype.writeCommand): review libs/service-kit/src/storage/mongo-driver-fix.ts',
    );
  }
  if (proto[PATCHED]) return;
  const original = proto.writeCommand;
  proto.writeCommand = function writeCommandFailingOnClose(
    this: DriverConnection,
    command: unknown,
    options: unknown,
  ): Promise<void> {
    const closedError = () => this.error ?? new MongoNetworkError(`connection ${this.id} to ${this.address} closed`);
    if (this.closed) return Promise.reject(closedError());
    return new Promise<void>((resolve, reject) => {
      const onClose = () => reject(closedError());
      this.socket.once('close', onClose);
      original
        .call(this, command, options)
        .then(resolve, reject)
        .finally(() => this.socket.off('close', onClose));
    });
  };
  proto[PATCHED] = true;
}

/** How often a pool looks for connections to open or close; the driver's 100 ms wakes an idle process ten times a second. */
export const POOL_MAINTENANCE_MS = 10_000;

/**
 * Sets the pool's maintenance interval, which the driver reads from its parsed options but does not accept from
 * the caller (minPoolSizeCheckFrequencyMS, internal in 6.x). With minPoolSize 0 and no maxIdleTimeMS the
 * maintenance has nothing to do. Before connect(): the pool is made from these options.
 */
export function quietPoolMaintenance(client: MongoClient): void {
  const options = client.options as unknown as Record<string, unknown>;
  if (!('minPoolSize' in options)) {
    throw new Error('mongodb driver internals changed (MongoClient.options): review mongo-driver-fix.ts');
  }
  options.minPoolSizeCheckFrequencyMS = POOL_MAINTENANCE_MS;
}
