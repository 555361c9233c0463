import { connectNats, createLogger } from '@clinic/service-kit';
import { provision } from '@clinic/service-kit/provision';
import type { Infrastructure } from './infra';
import { installationSystems } from './outside-systems';

/**
 * Makes every stream and consumer as the `provisioner` NATS user, before any
 * service starts: the services and the gateway hold no right to (provision.ts
 * in service-kit). OUTSIDE_SYSTEMS_FILE and NATS_STREAM_REPLICAS as in compose.
 */
export async function provisionStack(infra: Infrastructure, env: NodeJS.ProcessEnv): Promise<void> {
  const log = createLogger('provision', env.LOG_LEVEL === 'debug' ? 'debug' : 'warn');
  const nc = await connectNats(
    {
      url: infra.natsUrl,
      user: 'provisioner',
      password: infra.natsPasswords.provisioner,
      tlsCaFile: infra.natsTlsCaFile,
    },
    { name: 'provision', log },
  );
  try {
    await provision(nc, log, {
      systems: installationSystems(env),
      streamReplicas: Number(env.NATS_STREAM_REPLICAS ?? 0),
    });
  } finally {
    await nc.close();
  }
}
