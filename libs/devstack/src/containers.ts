/** NATS and MongoDB 7 in containers (testcontainers), for machines with a Docker engine. */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Infrastructure } from './infra';
import { natsServerPasswordEnv, renderNatsConfig } from './nats-config';
import { natsPasswords } from './secrets';
import { NATS_IMAGE_TAG } from './paths';

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
export async function startContainerInfrastructure(dataDir: string): Promise<Infrastructure> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const passwords = natsPasswords(dataDir, { make: true });
  const config = renderNatsConfig({ listen: '0.0.0.0:4222', storeDir: '/data/jetstream' });
  const [natsContainer, mongoContainer] = await Promise.all([
    new GenericContainer(`nats:${NATS_IMAGE_TAG}`)
      .withCopyContentToContainer([{ content: config, target: '/etc/nats/clinic.conf' }])
      .withEnvironment(natsServerPasswordEnv(passwords))
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
    natsNodes: [],
    metricsTargets: [],
    startNats: unsupported,
    startDb: unsupported,
    async stop() {
      await Promise.all([natsContainer.stop(), mongoContainer.stop()]);
    },
  };
}
