// npm run backup -- DIR: an online backup of the running embedded stack (DATA_DIR, NATS_URL) into the new folder DIR.
import { resolve } from 'node:path';
import { dataDirFromEnv, toolNatsSettings } from '@clinic/devstack';
import { backupEmbedded } from '@clinic/ops';
import { fail } from './args';
import { embeddedInstallation } from './embedded-installation';

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (!dir) fail('usage: npm run backup -- <new folder>', 2);
  // As the `ops` NATS user unless told otherwise (its right to take stream snapshots), where npm start is.
  const dataDir = dataDirFromEnv();
  const nats = toolNatsSettings(dataDir, 'ops');
  const say = (line: string) => process.stderr.write(`[backup] ${line}\n`);
  const manifest = await backupEmbedded({
    dataDir,
    outDir: resolve(dir),
    nats,
    installation: embeddedInstallation(),
    say,
  });
  process.stdout.write(
    `Backed up ${dataDir} into ${resolve(dir)} (${manifest.started_at} to ${manifest.finished_at})\n`,
  );
}

main().catch((err: unknown) => {
  const { code, message } = err as { code?: string; message: string };
  const why = code === 'CONNECTION_REFUSED' ? 'NATS does not answer: is the stack of DATA_DIR running?' : message;
  fail(`backup failed, nothing kept: ${why.split('\n')[0]}`);
});
