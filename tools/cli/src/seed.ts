// npm run seed -- <file.json>
// Publishes reference records and waits until every service has applied them.
import { readFileSync } from 'node:fs';
import type { NatsConnection } from 'nats';
import { connectNats, createLogger } from '@clinic/service-kit';
import {
  dataDirFromEnv,
  parseSeedFile,
  SeedError,
  seedReferenceData,
  toolNatsSettings,
  type ParsedSeed,
  type ToolNatsSettings,
} from '@clinic/devstack';
import { fail } from './args';

async function main(): Promise<void> {
  const file = process.argv[2];
  if (!file) fail('usage: npm run seed -- <file.json>', 2);
  let content: unknown;
  try {
    content = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    fail(`Cannot read ${file} as JSON: ${(err as Error).message}`, 2);
  }
  let seed: ParsedSeed;
  try {
    seed = parseSeedFile(content);
  } catch (err) {
    fail((err as Error).message, 2);
  }
  const log = createLogger('seed', 'warn');
  let nc: NatsConnection;
  let settings: ToolNatsSettings;
  try {
    // As the `ops` NATS user unless told otherwise, where the npm start of DATA_DIR is, with its own password.
    settings = toolNatsSettings(dataDirFromEnv(), 'ops');
  } catch (err) {
    fail((err as Error).message);
  }
  try {
    nc = await connectNats(settings, { name: 'seed', log, waitForServer: false });
  } catch (err) {
    fail(
      `Cannot reach NATS at ${settings.url} (${(err as Error).message}). Is the stack running? Start it with \`npm start\`.`,
    );
  }
  try {
    const result = await seedReferenceData(nc, seed);
    process.stdout.write(
      `Published ${result.published} record(s) up to stream sequence ${result.lastSeq}; every service has applied them.\n`,
    );
  } catch (err) {
    fail(err instanceof SeedError ? err.message : `Seeding failed: ${(err as Error).message}`);
  } finally {
    await nc.close();
  }
}

void main();
