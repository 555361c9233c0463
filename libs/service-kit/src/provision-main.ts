/** `node provision-main.js`: provisions every stream and consumer as the `provisioner` NATS user, then exits. */
import { connectNats } from './nats/nats-client';
import { consumerNames, provision, PROVISION_ENV } from './nats/provision';
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
      eventReaders: consumerNames('EVENT_READERS', env.EVENT_READERS),
      streamReplicas: env.NATS_STREAM_REPLICAS,
    });
    log.info('streams and consumers provisioned');
  } finally {
    await nc.drain();
  }
}

main().catch(exitOnStartupFailure(log));
