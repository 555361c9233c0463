// The embedded default's parts that `npm run backup` and `npm run restore` (@clinic/ops) need, from the dev stack.
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  canConnect,
  ferretDbBinary,
  freeListeningPort,
  ManagedProcess,
  natsServerBinary,
  OWN_SECRET_FILES,
  privateDir,
  renderNatsConfig,
  waitFor,
} from '@clinic/devstack';
import type { EmbeddedInstallation, RestoreNats } from '@clinic/ops';

async function startRestoreNats(natsDir: string): Promise<RestoreNats> {
  const port = await freeListeningPort();
  const password = randomBytes(24).toString('hex');
  const config = join(natsDir, 'restore.conf');
  writeFileSync(
    config,
    renderNatsConfig({
      listen: `127.0.0.1:${port}`,
      storeDir: join(natsDir, 'jetstream'),
      authorization: `authorization { user: "restore", password: "${password}" }`,
    }),
  );
  const server = new ManagedProcess({
    name: 'nats-restore',
    command: natsServerBinary(),
    args: ['-c', config],
    output: { kind: 'file', path: join(natsDir, 'restore.log') },
  });
  server.start();
  const stop = async () => {
    await server.stop();
    rmSync(config, { force: true });
  };
  try {
    await waitFor('the restore NATS server', () => canConnect(port), 20_000, 50);
  } catch (err) {
    await stop();
    throw err;
  }
  return { connect: { servers: `nats://127.0.0.1:${port}`, user: 'restore', pass: password }, stop };
}

export function embeddedInstallation(): EmbeddedInstallation {
  return { ferretDbBinary, secretFiles: OWN_SECRET_FILES, privateDir, startRestoreNats };
}
