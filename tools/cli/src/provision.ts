// npm run provision: makes or updates every stream and durable consumer of a running NATS, as the `provisioner`
// user (npm start does it before the services; this is for a NATS the services already use, after an upgrade).
import type { NatsConnection } from 'nats';
import { connectNats, createLogger } from '@clinic/service-kit';
import { provision } from '@clinic/service-kit/provision';
import { dataDirFromEnv, installationSystems, toolNatsSettings, type ToolNatsSettings } from '@clinic/devstack';
import { fail } from './args';

async function main(): Promise<void> {
  const log = createLogger('provision', 'warn');
  let settings: ToolNatsSettings;
  try {
    settings = toolNatsSettings(dataDirFromEnv(), 'provisioner');
  } catch (err) {
    fail((err as Error).message);
  }
  let nc: NatsConnection;
  try {
    nc = await connectNats(settings, { name: 'provision', log, waitForServer: false });
  } catch (err) {
    fail(`Cannot reach NATS at ${settings.url} (${(err as Error).message}). Is the stack running?`);
  }
  try {
    await provision(nc, log, {
      systems: installationSystems(),
      streamReplicas: Number(process.env.NATS_STREAM_REPLICAS ?? 0),
    });
    process.stdout.write('Every stream and durable consumer is provisioned.\n');
  } catch (err) {
    fail(`Provisioning failed: ${(err as Error).message}`);
  } finally {
    await nc.close();
  }
}

void main();
