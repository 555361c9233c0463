import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gatewaySubjectsAreKnown, NATS_PERMISSIONS } from '@clinic/contracts';
import { composeNatsConfig, REPO_ROOT } from '../src';

it('keeps deploy/nats/nats.conf in step with the contracts (run npm run gen:nats-config)', () => {
  expect(readFileSync(join(REPO_ROOT, 'deploy', 'nats', 'nats.conf'), 'utf8')).toBe(composeNatsConfig());
});

it('gives the gateway only subjects that have an access rule', () => {
  expect(gatewaySubjectsAreKnown()).toBe(true);
  expect(NATS_PERMISSIONS.gateway.subscribe).toEqual(['_INBOX.>']);
});
