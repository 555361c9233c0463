// npm run restore -- DIR: restores the backup in DIR into an empty DATA_DIR (the stack stopped); then npm start.
import { join, resolve } from 'node:path';
import { REPO_ROOT } from '@clinic/devstack';
import { restoreEmbedded } from '@clinic/ops';
import { fail } from './args';
import { embeddedInstallation } from './embedded-installation';

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (!dir) fail('usage: npm run restore -- <backup folder>', 2);
  const dataDir = resolve(process.env.DATA_DIR ?? join(REPO_ROOT, '.data'));
  const say = (line: string) => process.stderr.write(`[restore] ${line}\n`);
  const manifest = await restoreEmbedded({
    backupDir: resolve(dir),
    dataDir,
    installation: embeddedInstallation(),
    say,
  });
  process.stdout.write(`Restored the backup of ${manifest.started_at} into ${dataDir}; start it with npm start\n`);
}

main().catch((err: unknown) => fail(`restore failed: ${(err as Error).message}`));
