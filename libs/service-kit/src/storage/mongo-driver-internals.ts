/**
 * Every use of the MongoDB driver's internals, in one file: the version is pinned exactly
 * (libs/service-kit/package.json) and test/mongo-driver-internals.test.ts fails when these shapes or behaviours
 * change. Why each one: docs/RELIABILITY.md (the write that hangs), docs/PERFORMANCE.md (timing, pool maintenance).
 */
import { performance } from 'node:perf_hooks';
import { MongoNetworkError, type MongoClient } from 'mongodb';

/** The driver's connection class, which both wraps below patch. */
const CONNECTION_MODULE = 'mongodb/lib/cmap/connection';

interface DriverConnection {
  id: number | string;
  address: string;
  closed: boolean;
  error?: Error;
  socket: NodeJS.EventEmitter;
  writeCommand(command: unknown, options: unknown): Promise<void>;
}

const PATCHED = Symbol.for('clinic.mongodb.writeCommandFailsOnClose');

/**
 * Fails a command written on a connection whose socket is gone as a network error once the socket closes (or at
 * once if it has): the driver would otherwise wait for a 'drain' that never comes, and a monitor stuck so never checks again.
 */
export function installMongoDriverFix(): void {
  const { Connection } = require(CONNECTION_MODULE) as {
    Connection?: { prototype: DriverConnection & { [PATCHED]?: true } };
  };
  const proto = Connection?.prototype;
  if (!proto || typeof proto.writeCommand !== 'function') {
    throw new Error(
      'mongodb driver internals changed (Connection.prototype.writeCommand): review libs/service-kit/src/storage/mongo-driver-internals.ts',
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
 * the caller (minPoolSizeCheckFrequencyMS, internal in 6.x). Before connect(): the pool is made from these options.
 */
export function quietPoolMaintenance(client: MongoClient): void {
  const options = client.options as unknown as Record<string, unknown>;
  if (!('minPoolSize' in options)) {
    throw new Error('mongodb driver internals changed (MongoClient.options): review mongo-driver-internals.ts');
  }
  options.minPoolSizeCheckFrequencyMS = POOL_MAINTENANCE_MS;
}

interface DriverConnectionClass {
  prototype: {
    command(this: unknown, ns: unknown, command: Record<string, unknown>, ...rest: unknown[]): Promise<unknown>;
  } & { [TIMED]?: true };
}

const TIMED = Symbol.for('clinic.mongodb.commandsTimed');

/** Where a timed command's round trip goes: its name, how it ended and its milliseconds. */
export type CommandTimer = (command: string, outcome: 'ok' | 'error', ms: number) => void;

/**
 * Times every database command this process sends by wrapping Connection.prototype.command; false when the
 * internals changed, and the caller falls back to command monitoring (which decodes every reply twice).
 */
export function timeDriverCommands(observe: CommandTimer): boolean {
  let Connection: DriverConnectionClass | undefined;
  try {
    ({ Connection } = require(CONNECTION_MODULE) as { Connection?: DriverConnectionClass });
  } catch {
    return false;
  }
  const proto = Connection?.prototype;
  if (!proto || typeof proto.command !== 'function') return false;
  if (proto[TIMED]) return true;
  const original = proto.command;
  proto.command = async function timedCommand(ns, command, ...rest) {
    const started = performance.now();
    const name = Object.keys(command ?? {})[0] ?? 'unknown';
    try {
      const reply = await original.call(this, ns, command, ...rest);
      observe(name, 'ok', performance.now() - started);
      return reply;
    } catch (err) {
      observe(name, 'error', performance.now() - started);
      throw err;
    }
  };
  proto[TIMED] = true;
  return true;
}
