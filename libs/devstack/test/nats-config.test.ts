import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  cacheStreamOf,
  cacheSubjectsOf,
  discoverySubjectsOf,
  gatewaySubjectsAreKnown,
  inboxPrefixOf,
  NATS_PERMISSIONS,
  NATS_USERS,
  requestSubjectsOf,
  SERVICE_NAMES,
  type ServiceName,
} from '@clinic/contracts';
import {
  composeNatsConfig,
  composeNatsEntrypoint,
  NATS_SERVER_VERSION,
  renderNatsConfig,
  REPO_ROOT,
  renderPermissionsTable,
  routeEnv,
  withPermissionsTable,
} from '../src';

it('keeps deploy/nats/nats.conf and its entrypoint in step with the contracts (run npm run gen:nats-config)', () => {
  expect(readFileSync(join(REPO_ROOT, 'deploy', 'nats', 'nats.conf'), 'utf8')).toBe(composeNatsConfig());
  expect(readFileSync(join(REPO_ROOT, 'deploy', 'nats', 'entrypoint.sh'), 'utf8')).toBe(composeNatsEntrypoint());
});

it('keeps the "who may do what on NATS" table of docs/nats.md in step with the contracts (run npm run gen:nats-config)', () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'nats.md'), 'utf8');
  expect(doc).toContain(renderPermissionsTable());
  expect(withPermissionsTable(doc)).toBe(doc);
  // A drifted table is caught: the check is not vacuous.
  expect(withPermissionsTable(doc.replace('`_INBOX_hospital.>`', '`_INBOX.>`'))).not.toBe(
    doc.replace('`_INBOX_hospital.>`', '`_INBOX.>`'),
  );
});

it('gives the gateway only subjects that have an access rule', () => {
  expect(gatewaySubjectsAreKnown()).toBe(true);
  // Nothing else to subscribe to: its reply cache reads the services' versions by request.
  expect(NATS_PERMISSIONS.gateway.subscribe).toEqual(['_INBOX_gateway.>']);
  // It may store check marks, and no mark of a scope.
  expect(NATS_PERMISSIONS.gateway.publish.filter((s) => s.startsWith('cache.'))).toEqual(
    SERVICE_NAMES.map((s) => cacheSubjectsOf(s).check),
  );
});

it("lets each user subscribe to its own reply prefix and to no other user's", () => {
  for (const user of NATS_USERS) {
    const inboxes = NATS_PERMISSIONS[user].subscribe.filter((s) => s.startsWith('_INBOX'));
    expect({ user, inboxes }).toEqual({ user, inboxes: [`${inboxPrefixOf(user)}.>`] });
    // Nothing else with a wildcard: services list their request subjects one by one; discovery's instance id is made at start.
    const wildcards = NATS_PERMISSIONS[user].subscribe.filter((s) => !s.startsWith('_INBOX') && /[*>]/.test(s));
    const ownInstance = isService(user) ? ['PING', 'INFO', 'STATS'].map((verb) => `$SRV.${verb}.${user}.*`) : [];
    expect({ user, wildcards }).toEqual({ user, wildcards: ownInstance });
  }
});

const isService = (user: string): user is ServiceName => (SERVICE_NAMES as readonly string[]).includes(user);
/** The cache streams a user reads the latest of: a service its own, the gateway (its reply cache) every service's. */
const cacheStreamsOf = (user: string): string[] =>
  isService(user)
    ? [cacheStreamOf(user).name]
    : user === 'gateway'
      ? SERVICE_NAMES.map((s) => cacheStreamOf(s).name)
      : [];

it('lets each service answer discovery ($SRV) for all, its name and its instance only, and only ops ask', () => {
  for (const user of NATS_USERS) {
    const answers = NATS_PERMISSIONS[user].subscribe.filter((s) => s.startsWith('$SRV.'));
    expect({ user, answers }).toEqual({ user, answers: isService(user) ? discoverySubjectsOf(user) : [] });
    const asks = NATS_PERMISSIONS[user].publish.filter((s) => s.startsWith('$SRV.'));
    expect({ user, asks }).toEqual({
      user,
      asks: user === 'ops' ? [...new Set(SERVICE_NAMES.flatMap(discoverySubjectsOf))] : [],
    });
  }
  expect(discoverySubjectsOf('billing')).toContain('$SRV.STATS.billing.*');
});

it('grants no JetStream wildcard beyond a stream, no deletion, and streams and consumers to the provisioner only', () => {
  for (const user of NATS_USERS) {
    const js = NATS_PERMISSIONS[user].publish.filter((s) => s.startsWith('$JS.'));
    // Every JetStream API subject names one stream (never `$JS.API.>`, `$JS.API.STREAM.>` ...).
    for (const subject of js.filter((s) => s.startsWith('$JS.API.') && s !== '$JS.API.INFO')) {
      expect({
        user,
        subject,
        namesAStream: /^\$JS\.API\.(STREAM|CONSUMER|DIRECT)\.[A-Z.]+?\.[A-Z_]+(\.|$)/.test(subject),
      }).toEqual({ user, subject, namesAStream: true });
    }
    expect(js.filter((s) => /\.(DELETE|PURGE|SNAPSHOT)\./.test(s) && user !== 'ops')).toEqual([]);
    const changes = js.filter((s) => /STREAM\.(CREATE|UPDATE)|CONSUMER\.(CREATE|DURABLE)/.test(s));
    if (user !== 'provisioner') expect({ user, changes }).toEqual({ user, changes: [] });
    const reads = js.filter((s) => s.includes('.GET.'));
    expect({ user, reads }).toEqual({ user, reads: cacheStreamsOf(user).map((s) => `$JS.API.DIRECT.GET.${s}`) });
  }
});

it('builds the nats-server release the stack runs (bootstrap and paths agree)', () => {
  const bootstrap = readFileSync(join(REPO_ROOT, 'scripts', 'bootstrap.sh'), 'utf8');
  expect(bootstrap).toContain(`NATS_VERSION=${NATS_SERVER_VERSION}`);
});

it('renders a cluster node: its name, its routes, JetStream flushed before each acknowledgement', () => {
  const conf = renderNatsConfig({
    serverName: 'n2',
    listen: '127.0.0.1:4223',
    storeDir: '/tmp/x',
    cluster: { name: 'clinic', listen: '127.0.0.1:6223', routes: ['nats://127.0.0.1:6222', 'nats://127.0.0.1:6223'] },
  });
  expect(conf).toContain('server_name: "n2"');
  expect(conf).toMatch(/cluster \{\n {2}name: "clinic"\n {2}listen: "127.0.0.1:6223"\n/);
  // Routes authenticate: the routes to dial and the password required come from the environment.
  expect(conf).toContain('  routes: $NATS_ROUTES\n  authorization { user: route, password: $NATS_ROUTE_PASSWORD');
  expect(routeEnv(['nats://127.0.0.1:6222', 'nats://h:6223'], 'p/w')).toEqual({
    NATS_ROUTE_PASSWORD: '"p/w"',
    NATS_ROUTES: '["nats://route:p%2Fw@127.0.0.1:6222", "nats://route:p%2Fw@h:6223"]',
  });
  expect(conf).toMatch(/jetstream \{[^}]*sync_interval: always/);
  expect(renderNatsConfig({ listen: 'x:1', storeDir: '/s', syncInterval: 'default' })).not.toContain('sync_interval');
});

it('lets a service subscribe to its request subjects in its own queue group only', () => {
  for (const service of SERVICE_NAMES) {
    const subscribe = NATS_PERMISSIONS[service].subscribe;
    for (const subject of requestSubjectsOf(service)) {
      expect({ service, subject, granted: subscribe.filter((s) => s.split(' ')[0] === subject) }).toEqual({
        service,
        subject,
        granted: [`${subject} ${service}`],
      });
    }
  }
});
