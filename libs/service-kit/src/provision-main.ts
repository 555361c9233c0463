/** `node provision-main.js`: provisions every stream and consumer as the `provisioner` NATS user, then exits. */
import { connectNats } from './nats/nats-client';
import { provision, PROVISION_ENV } from './nats/provision';
import { readOutsideSystems } from './process/outside-systems';
import { natsSettings } from './process/config';
import { readEnv } from './process/env';
import { exitOnStartupFailure } from './process/lifecycle';
import { createLogger } from './process/logger';

const log = createLogger('provision');

async function main(): Promise<void> {
  const env = readEnv(PROVISION_ENV);
  const nc = await connectNats(natsSettings(env), { name: 'provision', log });
  try {
    await provision(nc, log, {
      systems: readOutsideSystems(env.OUTSIDE_SYSTEMS_FILE),
      streamReplicas: env.NATS_STREAM_REPLICAS,
      limits: {
        eventsMaxAgeDays: env.EVENTS_MAX_AGE_DAYS,
        eventsMaxBytesMb: env.EVENTS_MAX_BYTES_MB,
        refMaxBytesMb: env.REF_MAX_BYTES_MB,
        deadLettersMaxAgeDays: env.DEAD_LETTERS_MAX_AGE_DAYS,
        deadLettersMaxBytesMb: env.DEAD_LETTERS_MAX_BYTES_MB,
      },
    });
    log.info('streams and consumers provisioned');
  } finally {
    await nc.drain();
  }
}

main().catch(exitOnStartupFailure(log));
