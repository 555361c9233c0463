import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gatewaySubjectsAreKnown, NATS_PERMISSIONS } from '@clinic/contracts';
import { composeNatsConfig, NATS_IMAGE_TAG, NATS_SERVER_VERSION, renderNatsConfig, REPO_ROOT } from '../src';

it('keeps deploy/nats/nats.conf in step with the contracts (run npm run gen:nats-config)', () => {
  expect(readFileSync(join(REPO_ROOT, 'deploy', 'nats', 'nats.conf'), 'utf8')).toBe(composeNatsConfig());
});

it('gives the gateway only subjects that have an access rule', () => {
  expect(gatewaySubjectsAreKnown()).toBe(true);
  expect(NATS_PERMISSIONS.gateway.subscribe).toEqual(['_INBOX.>']);
});

it('builds the nats-server release the stack runs (bootstrap and paths agree)', () => {
  const bootstrap = readFileSync(join(REPO_ROOT, 'scripts', 'bootstrap.sh'), 'utf8');
  expect(bootstrap).toContain(`NATS_VERSION=${NATS_SERVER_VERSION}`);
  expect(NATS_IMAGE_TAG.startsWith(NATS_SERVER_VERSION.slice(1).split('.').slice(0, 2).join('.'))).toBe(true);
});

it('renders a cluster node: its name, its routes, JetStream flushed before each acknowledgement', () => {
  const conf = renderNatsConfig({
    serverName: 'n2', listen: '127.0.0.1:4223', storeDir: '/tmp/x',
    cluster: { name: 'clinic', listen: '127.0.0.1:6223', routes: ['nats://127.0.0.1:6222', 'nats://127.0.0.1:6223'] },
  });
  expect(conf).toContain('server_name: "n2"');
  expect(conf).toMatch(/cluster \{\n  name: "clinic"\n  listen: "127.0.0.1:6223"\n  routes: \["nats:\/\/127.0.0.1:6222", "nats:\/\/127.0.0.1:6223"\]/);
  expect(conf).toMatch(/jetstream \{[^}]*sync_interval: always/);
  expect(renderNatsConfig({ listen: 'x:1', storeDir: '/s', syncInterval: 'default' })).not.toContain('sync_interval');
});
