import { join } from 'node:path';
import { ferretDbBinary, goServerEnv } from './paths';
import { canConnect } from './ports';
import { ManagedProcess, waitServing } from './process';
import { DB_PASSWORD_FILE, ownSecret } from './secrets';

/** The embedded database's one user (FerretDB v1 has no roles: it reaches every database). */
export const DB_USER = 'clinic';

/** The embedded database server of a local stack (tools/ferretdb). */
export interface EmbeddedDb {
  process: ManagedProcess;
  /** What the stack's services connect with (its password included). */
  url: string;
  /** Starts it (again, on the same port, socket and data) and waits until it serves. */
  start(): Promise<void>;
}

/**
 * Where the services reach the embedded database: a Unix socket in the data folder (the owner's alone),
 * which costs each command less CPU on both ends than loopback TCP. The TCP port stays open for tools.
 * None when the path is too long for a socket address (107 bytes on Linux, 103 on macOS).
 */
function socketPath(dataDir: string): string | undefined {
  const path = join(dataDir, 'ferretdb.sock');
  return Buffer.byteLength(path) < 104 ? path : undefined;
}

export function embeddedDb(options: {
  dataDir: string;
  logDir: string;
  dbDir: string;
  port: number;
  /** Its Prometheus metrics on loopback (FerretDB's own, patch 0022); 0: none. */
  metricsPort?: number;
}): EmbeddedDb {
  const { dataDir, port } = options;
  const socket = socketPath(dataDir);
  // Every connection authenticates as the stack's user, whose password is made on the first start.
  const password = ownSecret(dataDir, DB_PASSWORD_FILE);
  const env = process.env;
  const server = new ManagedProcess({
    name: 'ferretdb',
    command: ferretDbBinary(),
    args: [
      '--listen',
      `127.0.0.1:${port}`,
      ...(socket ? ['--listen-unix', socket] : []),
      '--data-dir',
      options.dbDir,
      '--auth-user',
      DB_USER,
      '--auth-password-file',
      join(dataDir, DB_PASSWORD_FILE),
      '--log-level',
      env.FERRETDB_LOG_LEVEL ?? 'warn',
      // Go profiling for performance work, e.g. FERRETDB_DEBUG_ADDR=127.0.0.1:6060.
      ...(env.FERRETDB_DEBUG_ADDR ? ['--debug-addr', env.FERRETDB_DEBUG_ADDR] : []),
      ...(options.metricsPort ? ['--metrics-addr', `127.0.0.1:${options.metricsPort}`] : []),
    ],
    env: goServerEnv(),
    output: { kind: 'file', path: join(options.logDir, 'ferretdb.log') },
  });
  const address = socket ? encodeURIComponent(socket) : `127.0.0.1:${port}`;
  return {
    process: server,
    url: `mongodb://${DB_USER}:${encodeURIComponent(password)}@${address}/`,
    async start() {
      if (!server.running) server.start();
      // Its own TCP port first: the socket's path may be answered by another stack's server on the same
      // DATA_DIR (this one then exits), and this server binds its socket right after its port.
      const serving = async () => (await canConnect(port)) && (!socket || (await canConnect(socket)));
      await waitServing(server, `ferretdb on port ${port}${socket ? ` and ${socket}` : ''}`, serving, 20_000);
    },
  };
}
