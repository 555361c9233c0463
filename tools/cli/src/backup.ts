// npm run backup -- DIR: an online backup of the running embedded stack (DATA_DIR, NATS_URL) into the new folder DIR.
import { resolve } from 'node:path';
import { backupEmbedded, dataDirFromEnv, natsPasswordOf } from '@clinic/devstack';
import { natsSettings } from '@clinic/service-kit';
import { fail } from './args';

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (!dir) fail('usage: npm run backup -- <new folder>', 2);
  // Operators' tools connect as the `ops` NATS user unless told otherwise (its right to take stream snapshots).
  const nats = natsSettings();
  nats.user ??= 'ops';
  const dataDir = dataDirFromEnv();
  nats.password ??= natsPasswordOf(nats.user, dataDir);
  const say = (line: string) => process.stderr.write(`[backup] ${line}\n`);
  const manifest = await backupEmbedded({ dataDir, outDir: resolve(dir), nats, say });
  process.stdout.write(
    `Backed up ${dataDir} into ${resolve(dir)} (${manifest.started_at} to ${manifest.finished_at})\n`,
  );
}

main().catch((err: unknown) => fail(`backup failed: ${(err as Error).message}`));
