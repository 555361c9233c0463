import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ferretDbBinary, natsServerBinary } from './paths';
import { canConnect, freePort, isPortFree, waitFor } from './ports';
import { ManagedProcess } from './process';
import type { NatsUser } from '@clinic/contracts';
import { natsPasswords, passwordVariable, renderNatsConfig } from './nats-config';

/** The two servers everything else needs. */
export interface Infrastructure {
  kind: 'local' | 'containers' | 'external';
  natsUrl: string;
  mongoUrl: string;
  /** Passwords of the NATS users (see libs/contracts nats-permissions). */
  natsPasswords: Record<NatsUser, string>;
  /** Present for local servers, which fault tests stop and start on the same port and data. */
  nats?: ManagedProcess;
  db?: ManagedProcess;
  startNats(): Promise<void>;
  startDb(): Promise<void>;
  stop(): Promise<void>;
}

export interface LocalInfraOptions {
  dataDir: string;
  logDir: string;
  natsPort?: number;
  dbPort?: number;
  /** An external NATS server: no local one is started. */
  natsUrl?: string;
  /** An external database server: no local one is started. */
  mongoUrl?: string;
}

async function portFor(requested: number | undefined, what: string): Promise<number> {
  if (requested === undefined || requested === 0) return freePort();
  if (!(await isPortFree(requested))) {
    throw new Error(`Port ${requested} for ${what} is in use. Stop what uses it, or set the port/URL to use another.`);
  }
  return requested;
}

/**
 * nats-server with JetStream and the embedded FerretDB as child processes on
 * loopback; either is skipped when an external URL is given for it.
 */
export async function startLocalInfrastructure(options: LocalInfraOptions): Promise<Infrastructure> {
  const natsPort = options.natsUrl ? 0 : await portFor(options.natsPort, 'NATS');
  const dbPort = options.mongoUrl ? 0 : await portFor(options.dbPort, 'the database');
  const natsDir = join(options.dataDir, 'nats');
  const dbDir = join(options.dataDir, 'ferretdb');
  mkdirSync(natsDir, { recursive: true });
  mkdirSync(dbDir, { recursive: true });
  const natsConfigPath = join(natsDir, 'nats.conf');
  writeFileSync(natsConfigPath, renderNatsConfig({ listen: `127.0.0.1:${natsPort}`, storeDir: join(natsDir, 'jetstream') }));
  const passwords = natsPasswords();

  const nats = new ManagedProcess({
    name: 'nats',
    command: natsServerBinary(),
    args: ['-c', natsConfigPath],
    env: passwordEnv(passwords),
    output: { kind: 'file', path: join(options.logDir, 'nats.log') },
  });
  const db = new ManagedProcess({
    name: 'ferretdb',
    command: ferretDbBinary(),
    args: [
      '--listen', `127.0.0.1:${dbPort}`,
      '--data-dir', dbDir,
      '--log-level', process.env.FERRETDB_LOG_LEVEL ?? 'warn',
      // Go profiling for performance work, e.g. FERRETDB_DEBUG_ADDR=127.0.0.1:6060.
      ...(process.env.FERRETDB_DEBUG_ADDR ? ['--debug-addr', process.env.FERRETDB_DEBUG_ADDR] : []),
    ],
    output: { kind: 'file', path: join(options.logDir, 'ferretdb.log') },
  });

  const startAndWait = async (proc: ManagedProcess, port: number) => {
    proc.start();
    await waitFor(`${proc.spec.name} on port ${port}`, async () => {
      if (proc.unexpectedExit) throw new Error(`${proc.spec.name} exited:\n${proc.logTail()}`);
      return canConnect(port);
    }, 20_000, 50);
  };

  const infra: Infrastructure = {
    kind: 'local',
    natsUrl: options.natsUrl ?? `nats://127.0.0.1:${natsPort}`,
    mongoUrl: options.mongoUrl ?? `mongodb://127.0.0.1:${dbPort}/`,
    natsPasswords: passwords,
    nats: options.natsUrl ? undefined : nats,
    db: options.mongoUrl ? undefined : db,
    startNats: () => startAndWait(nats, natsPort),
    startDb: () => startAndWait(db, dbPort),
    async stop() {
      await Promise.all([nats.stop(), db.stop()]);
    },
  };
  await Promise.all([options.natsUrl ? undefined : infra.startNats(), options.mongoUrl ? undefined : infra.startDb()]);
  return infra;
}

function passwordEnv(passwords: Record<NatsUser, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(passwords).map(([user, password]) => [passwordVariable(user as NatsUser), password]));
}

export function externalInfrastructure(natsUrl: string, mongoUrl: string): Infrastructure {
  const unsupported = async () => {
    throw new Error('External servers are not managed by this stack');
  };
  return {
    kind: 'external',
    natsUrl,
    mongoUrl,
    natsPasswords: natsPasswords(),
    startNats: unsupported,
    startDb: unsupported,
    stop: async () => undefined,
  };
}

/** Whether a Docker engine answers, so that testcontainers can be used. */
export async function dockerAvailable(): Promise<boolean> {
  // Loading testcontainers takes a second or more per test file (seconds on a busy machine): ask it
  // only where one of the places it looks for an engine exists.
  if (!dockerEnginePlausible()) return false;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

/** Whether any of testcontainers' ways to find an engine (settings, sockets) could apply here. */
function dockerEnginePlausible(): boolean {
  const env = process.env;
  if (env.DOCKER_HOST || env.TESTCONTAINERS_HOST_OVERRIDE || env.TESTCONTAINERS_DOCKER_SOCKET_OVERRIDE) return true;
  const home = homedir();
  const places = [
    join(home, '.testcontainers.properties'),
    '/var/run/docker.sock',
    env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, 'docker.sock') : '',
    join(home, '.docker', 'run', 'docker.sock'),
    join(home, '.docker', 'desktop', 'docker.sock'),
    typeof process.getuid === 'function' ? `/run/user/${process.getuid()}/docker.sock` : '',
  ];
  return process.platform === 'win32' || places.some((place) => place !== '' && existsSync(place));
}

/** NATS with JetStream and MongoDB 7 in containers, for machines with a Docker engine. */
export async function startContainerInfrastructure(): Promise<Infrastructure> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const passwords = natsPasswords();
  const config = renderNatsConfig({ listen: '0.0.0.0:4222', storeDir: '/data/jetstream' });
  const [natsContainer, mongoContainer] = await Promise.all([
    new GenericContainer('nats:2.10-alpine')
      .withCopyContentToContainer([{ content: config, target: '/etc/nats/clinic.conf' }])
      .withEnvironment(passwordEnv(passwords))
      .withCommand(['-c', '/etc/nats/clinic.conf'])
      .withExposedPorts(4222)
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .start(),
    new GenericContainer('mongo:7')
      .withExposedPorts(27017)
      .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
      .start(),
  ]);
  const unsupported = async () => {
    throw new Error('Restarting container servers is not supported; use local servers for fault tests');
  };
  return {
    kind: 'containers',
    natsUrl: `nats://${natsContainer.getHost()}:${natsContainer.getMappedPort(4222)}`,
    mongoUrl: `mongodb://${mongoContainer.getHost()}:${mongoContainer.getMappedPort(27017)}/`,
    natsPasswords: passwords,
    startNats: unsupported,
    startDb: unsupported,
    async stop() {
      await Promise.all([natsContainer.stop(), mongoContainer.stop()]);
    },
  };
}
