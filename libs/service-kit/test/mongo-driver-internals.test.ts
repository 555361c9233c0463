/**
 * The MongoDB driver's internals that storage/mongo-driver-internals.ts relies on, checked without a server: the
 * installed driver is the pinned one, and each internal still has the shape and behaviour the adapter expects.
 * When a raised driver fails here, review the adapter (and tests/integration/mongo-driver-fix.test.ts).
 */
import { Duplex } from 'node:stream';
import { MongoClient, MongoNetworkError } from 'mongodb';
import {
  installMongoDriverFix,
  POOL_MAINTENANCE_MS,
  quietPoolMaintenance,
  timeDriverCommands,
} from '../src/storage/mongo-driver-internals';
import { pinOf, settlesWithin } from './library-internals';

interface RawConnection {
  id: number;
  address: string;
  closed: boolean;
  error: Error | null;
  socket: Duplex;
  writeCommand(command: unknown, options: object): Promise<void>;
  command(ns: unknown, command: object, options: object): Promise<unknown>;
}
const { Connection } = require('mongodb/lib/cmap/connection') as {
  Connection: { prototype: RawConnection; new (stream: Duplex, options: object): RawConnection };
};
const { HostAddress, ns } = require('mongodb/lib/utils') as {
  HostAddress: { fromString(address: string): unknown };
  ns(name: string): unknown;
};
const { OpMsgRequest } = require('mongodb/lib/cmap/commands') as {
  OpMsgRequest: new (db: string, command: object, options: object) => unknown;
};

/** A connection on a socket whose writes never complete, as a destroyed socket's do: the driver waits for 'drain'. */
function stalledConnection(): RawConnection {
  const socket = new Duplex({ read() {}, write() {}, highWaterMark: 1 });
  return new Connection(socket, { id: 7, hostAddress: HostAddress.fromString('127.0.0.1:27017') });
}

const ping = () => new OpMsgRequest('admin', { ping: 1 }, {});

it('is the driver version pinned in libs/service-kit/package.json', () => {
  expect(pinOf('mongodb')).toMatchObject({ exact: true, installedIsPinned: true });
});

it('has a Connection whose fields and methods are the ones the adapter uses', () => {
  expect(typeof Connection.prototype.writeCommand).toBe('function');
  expect(typeof Connection.prototype.command).toBe('function');
  const connection = stalledConnection();
  expect(connection).toMatchObject({ id: 7, closed: false, error: null });
  expect(typeof connection.address).toBe('string');
  expect(connection.socket).toBeInstanceOf(Duplex);
  connection.socket.destroy();
});

// Order matters: the first case runs on the driver as shipped, the patch is installed after it.
it('still waits forever for a write on a socket that closes (the hang the fix exists for)', async () => {
  const connection = stalledConnection();
  const write = connection.writeCommand(ping(), { agreedCompressor: 'none' });
  connection.socket.destroy();
  expect(await settlesWithin(write, 200)).toBe('hung');
});

it('fails that write as a network error once the fix is installed, and at once on a closed connection', async () => {
  installMongoDriverFix();
  const connection = stalledConnection();
  const write = connection.writeCommand(ping(), { agreedCompressor: 'none' });
  connection.socket.destroy();
  expect(await settlesWithin(write, 1_000)).toBeInstanceOf(MongoNetworkError);
  expect(connection.closed).toBe(true);
  const late = connection.writeCommand(ping(), { agreedCompressor: 'none' });
  expect(await settlesWithin(late, 1_000)).toBeInstanceOf(MongoNetworkError);
});

it('times a command by its name through Connection.prototype.command', async () => {
  const timed: Array<[string, string]> = [];
  expect(timeDriverCommands((command, outcome) => timed.push([command, outcome]))).toBe(true);
  const connection = stalledConnection();
  const sent = connection.command(ns('admin.$cmd'), { ping: 1 }, { agreedCompressor: 'none' });
  connection.socket.destroy();
  expect(await settlesWithin(sent, 1_000)).toBeInstanceOf(Error);
  expect(timed).toEqual([['ping', 'error']]);
});

it("makes each server's pool from the client's options, so that the maintenance interval set there is used", async () => {
  const client = new MongoClient('mongodb://127.0.0.1:1/?directConnection=true', { serverSelectionTimeoutMS: 200 });
  expect(client.options).toHaveProperty('minPoolSize');
  quietPoolMaintenance(client);
  const interval = new Promise<unknown>((resolve) =>
    client.once('connectionPoolCreated', () => {
      const topology = (client as unknown as { topology: { s: { servers: Map<string, unknown> } } }).topology;
      const [server] = topology.s.servers.values() as IterableIterator<{ pool: { options: Record<string, unknown> } }>;
      resolve(server?.pool.options.minPoolSizeCheckFrequencyMS);
    }),
  );
  await client.connect().catch(() => undefined);
  await client.close();
  expect(await interval).toBe(POOL_MAINTENANCE_MS);
});
