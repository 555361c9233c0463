import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REF_STREAM } from '@clinic/contracts';
import { httpRequest, natsClientSettings, parseSeedFile, seedReferenceData, type Stack } from '@clinic/devstack';
import { connectNats, createLogger } from '@clinic/service-kit';

const DEMO_DIR = join(__dirname, '..', 'demo');

/**
 * Loads the demo data set when the reference stream is empty (a first start):
 * the reference records through the seed path, the charges through the API.
 * Returns what was loaded, or null when the stack already had data.
 */
export async function loadDemoDataOnFirstStart(
  stack: Stack,
  adminToken: string,
): Promise<{ records: number; charges: number } | null> {
  const nc = await connectNats(natsClientSettings(stack.infra, 'ops'), {
    name: 'demo',
    log: createLogger('demo', 'warn'),
    waitForServer: false,
  });
  try {
    const jsm = await nc.jetstreamManager();
    if ((await jsm.streams.info(REF_STREAM.name)).state.messages > 0) return null;
    const seed = parseSeedFile(JSON.parse(readFileSync(join(DEMO_DIR, 'seed.json'), 'utf8')));
    await seedReferenceData(nc, seed);
    const charges = JSON.parse(readFileSync(join(DEMO_DIR, 'charges.json'), 'utf8')) as object[];
    for (const charge of charges) {
      const response = await httpRequest(`${stack.gatewayUrl}/hospital_charges`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
        body: JSON.stringify(charge),
        ca: stack.gatewayCa,
      });
      if (response.status !== 201 && response.status !== 409) {
        throw new Error(`Demo charge not created: ${response.status} ${response.body.toString()}`);
      }
    }
    return { records: seed.records.length, charges: charges.length };
  } finally {
    await nc.close();
  }
}
