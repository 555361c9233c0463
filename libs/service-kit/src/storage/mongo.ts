import {
  MongoClient,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  type Db,
} from 'mongodb';
import type { Logger } from '../process/logger';
import { installMongoDriverFix, quietPoolMaintenance } from './mongo-driver-internals';
import { mongoMonitoringOptions, observeDatabaseCommands } from './database-metrics';
import { pauses, retryPolicy } from '../process/retry';

export interface MongoHandle {
  client: MongoClient;
  db: Db;
  close(): Promise<void>;
}

/**
 * Connects with short timeouts, so that a database outage turns into a 500
 * from the service well before the gateway's NATS timeout, and retries the
 * first connection until the server is reachable.
 */
export async function connectMongo(url: string, dbName: string, log: Logger, appName: string): Promise<MongoHandle> {
  installMongoDriverFix();
  const client = new MongoClient(url, {
    appName,
    serverSelectionTimeoutMS: 2_000,
    connectTimeoutMS: 2_000,
    socketTimeoutMS: 4_000,
    maxPoolSize: 32,
    // A write waits at most this long for a connection, then fails: with the write window (Outbox), it bounds
    // how late a write recorded in the outbox can be sent, and so how late it can land.
    waitQueueTimeoutMS: 2_000,
    // FerretDB does not stream topology changes. The default ten seconds keeps a stack at rest quiet: an operation
    // that finds no server asks for a check at once (every 500 ms while it waits).
    serverMonitoringMode: 'poll',
    ...mongoMonitoringOptions(),
  });
  quietPoolMaintenance(client);
  logTopologyChanges(client, log);
  observeDatabaseCommands(client);
  await retryPolicy({
    retryOn: () => true,
    retries: Infinity,
    pause: pauses.linear(200, 2_000),
    onRetry: (err, attempt) => log.warn({ err, attempt }, 'database not reachable yet; retrying'),
  }).execute(() => client.connect());
  log.info({ db: dbName }, 'database connected');
  return { client, db: client.db(dbName), close: () => client.close() };
}

/** One log line when the driver's view of the server changes, so an outage and its end are visible to ops. */
function logTopologyChanges(client: MongoClient, log: Logger): void {
  client.on('serverDescriptionChanged', (event) => {
    if (event.previousDescription.type === event.newDescription.type) return;
    log.warn(
      {
        address: event.address,
        from: event.previousDescription.type,
        to: event.newDescription.type,
        cause: event.newDescription.error?.message,
      },
      'database server state changed',
    );
  });
  client.on('serverHeartbeatFailed', (event) =>
    log.info(
      { address: event.connectionId, duration_ms: event.duration, cause: event.failure.message },
      'database heartbeat failed',
    ),
  );
  client.on('connectionPoolCleared', (event) =>
    log.info({ address: event.address }, 'database connection pool cleared'),
  );
}

/** The database could not be reached at all (as opposed to refusing one operation). */
export function isConnectivityError(err: unknown): boolean {
  return (
    err instanceof MongoNetworkError ||
    err instanceof MongoServerSelectionError ||
    err instanceof MongoNotConnectedError ||
    err instanceof MongoTopologyClosedError ||
    (err instanceof Error && err.name === 'MongoPoolClearedError')
  );
}
