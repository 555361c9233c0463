/**
 * The driver hang that libs/service-kit/src/storage/mongo-driver-internals.ts works around,
 * reproduced deterministically against the real database server: a command
 * sent on a connection whose socket was destroyed, before the socket's 'close'
 * event has run, must fail as a network error instead of waiting forever, and
 * the server monitor must go on checking after it happens to its connection.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, MongoNetworkError } from 'mongodb';
import { startLocalInfrastructure, type Infrastructure } from '@clinic/devstack';
import { installMongoDriverFix } from '@clinic/service-kit/internal';
import { settlesWithin } from '../../libs/service-kit/test/library-internals';

// Driver internals, as the fix sees them.
interface RawConnection {
  socket: { destroy(): void };
  command(ns: unknown, cmd: object, options: object): Promise<unknown>;
}
interface RawServer {
  monitor: { connection: RawConnection | null };
  requestCheck(): void;
}
const { ns } = require('mongodb/lib/utils') as { ns(name: string): unknown };
const serverOf = (client: MongoClient) =>
  [...(client as unknown as { topology: { s: { servers: Map<string, RawServer> } } }).topology.s.servers.values()][0]!; // one standalone server

let dir: string;
let infra: Infrastructure;
let client: MongoClient;

beforeAll(async () => {
  installMongoDriverFix();
  dir = mkdtempSync(join(tmpdir(), 'clinic-driver-fix-'));
  infra = await startLocalInfrastructure({ dataDir: dir, logDir: join(dir, 'logs') });
});
beforeEach(async () => {
  // Polling as the services do; a long interval so that only the test starts checks.
  client = await MongoClient.connect(infra.mongoUrl, {
    serverMonitoringMode: 'poll',
    heartbeatFrequencyMS: 60_000,
    serverSelectionTimeoutMS: 2_000,
  });
});
afterEach(async () => {
  await client?.close();
});
afterAll(async () => {
  await infra?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('fails a command written to a socket destroyed before its close event ran', async () => {
  const connection = serverOf(client).monitor.connection!;
  expect(connection).toBeTruthy();
  connection.socket.destroy();
  const outcome = await settlesWithin(connection.command(ns('admin.$cmd'), { ping: 1 }, {}), 3_000);
  expect(outcome).toBeInstanceOf(MongoNetworkError);
  expect((outcome as Error).message).toMatch(/closed/);
});

it('keeps the server monitor checking after its connection dies that way', async () => {
  const server = serverOf(client);
  const heartbeat = new Promise<string>((resolve) => {
    client.once('serverHeartbeatFailed', () => resolve('failed'));
    client.once('serverHeartbeatSucceeded', () => resolve('succeeded'));
  });
  // Wait out the minimum heartbeat interval, so the requested check runs at once, on the dying connection.
  await new Promise((resolve) => setTimeout(resolve, 600));
  server.monitor.connection!.socket.destroy();
  server.requestCheck();
  expect(await settlesWithin(heartbeat, 3_000)).toBe('resolved');
  // And it goes on: the next check reconnects and the database answers.
  await expect(client.db('admin').command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
});
