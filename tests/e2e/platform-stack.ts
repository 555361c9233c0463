/**
 * What the platform e2e files share: their stack, started for each importing file
 * (the beforeAll and afterAll below run in every file that imports this module), its seed and helpers.
 */
import type { NatsConnection } from 'nats';
import { startTestStack, type TestStack } from './harness';

export let t: TestStack;
/** As the gateway (may call services), as the hospital (publishes reference data), as ops (status queries). */
export let asGateway: NatsConnection;
export let asHospital: NatsConnection;
export let asOps: NatsConnection;

beforeAll(async () => {
  t = await startTestStack({ env: { REQUEST_TIMEOUT_MS: '1500' } });
  [asGateway, asHospital, asOps] = await Promise.all([t.nats('gateway'), t.nats('hospital'), t.nats('ops')]);
});
afterAll(async () => {
  await t?.stop();
});

export const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
