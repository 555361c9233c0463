import { natsPermissionsOf, natsUserSpecs, type OutsideSystem } from '@clinic/contracts';
import { join } from 'node:path';
import { readOutsideSystems } from '@clinic/service-kit/internal';
import { installationSystems } from './outside-systems';
import { REPO_ROOT } from './paths';

/** The environment variable that holds a NATS user's password (for nats-server and for the user's process). */
export const passwordVariable = (user: string): string => `NATS_${user.toUpperCase()}_PASSWORD`;

/** The environment a process needs to connect as `user`. */
export function natsCredentialsEnv(user: string, passwords: Record<string, string>): Record<string, string> {
  return { NATS_USER: user, NATS_PASSWORD: passwords[user]! };
}

/** Each user's password under NATS_<USER>_PASSWORD, as a process connecting as any of them takes it. */
export function passwordEnv(passwords: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(passwords).map(([user, password]) => [passwordVariable(user), password]));
}

/** passwordEnv for nats-server itself, each value a nats.conf string (natsString). */
export function natsServerPasswordEnv(passwords: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(passwordEnv(passwords)).map(([name, value]) => [name, natsString(value)]));
}

/**
 * A value for a `$VARIABLE` of nats.conf that stays a string: nats-server parses
 * the variable's value as config, so an unquoted password such as `12-q…` or
 * `1e5…` is read as a date or a number, and the server refuses to start.
 */
export function natsString(value: string): string {
  return JSON.stringify(value);
}

const list = (subjects: string[]) => `[${subjects.map((s) => JSON.stringify(s)).join(', ')}]`;

/**
 * The `authorization` block: one user per process kind, passwords taken from
 * the server's environment ($NATS_<USER>_PASSWORD), permissions from the contracts.
 */
export function renderNatsAuthorization(systems: readonly OutsideSystem[] = installationSystems()): string {
  const permissions = natsPermissionsOf(systems);
  const users = Object.keys(permissions).map((user) => {
    const p = permissions[user]!;
    return [
      '    {',
      `      user: ${user}`,
      `      password: $${passwordVariable(user)}`,
      '      permissions: {',
      `        publish: { allow: ${list(p.publish)} }`,
      `        subscribe: { allow: ${list(p.subscribe)} }`,
      ...(p.allowResponses > 0 ? [`        allow_responses: { max: ${p.allowResponses} }`] : []),
      '      }',
      '    }',
    ].join('\n');
  });
  return ['authorization {', '  users: [', users.join('\n'), '  ]', '}'].join('\n');
}

export interface NatsConfigOptions {
  listen: string;
  storeDir: string;
  /** Monitoring endpoint (health checks), e.g. 0.0.0.0:8222. */
  http?: string;
  /** Unique per node of a cluster (JetStream needs it); `$NATS_SERVER_NAME` reads it from the environment. */
  serverName?: string;
  cluster?: NatsClusterConfig;
  /** JetStream's flush to disk: `always` (before each acknowledgement) or an interval; see docs/RELIABILITY.md. */
  syncInterval?: string;
  /** TLS on the client port, required of every client, and on a cluster's routes, where both ends verify each other. */
  tls?: NatsTlsFiles;
  /** Replaces the users and permissions of the contracts (the restore tool's own short-lived server). */
  authorization?: string;
  /** The outside systems whose users it lists (default: OUTSIDE_SYSTEMS_FILE's, else `hospital`). */
  systems?: readonly OutsideSystem[];
}

export interface NatsTlsFiles {
  certFile: string;
  keyFile: string;
  /** The CA that signed every node's certificate (routes verify each other against it). */
  caFile: string;
}

export interface NatsClusterConfig {
  name: string;
  /** host:port the node accepts routes on. */
  listen: string;
  /** Every node's route URL (a node skips its own), without credentials: see routeEnv. */
  routes: string[];
}

/** The user every node presents on its routes, and requires of every route that connects in. */
export const ROUTE_USER = 'route';
/** The route user's password, in the server's environment (compose requires it; a local cluster makes one). */
export const ROUTE_PASSWORD_VARIABLE = 'NATS_ROUTE_PASSWORD';
/** The routes with the route user's credentials, in the server's environment (nats.conf reads no URL templates). */
export const ROUTES_VARIABLE = 'NATS_ROUTES';

/** A route URL carrying the route user's credentials (nats-server takes them from the URL it dials). */
export const routeUrlWithCredentials = (url: string, password: string): string =>
  url.replace('://', `://${ROUTE_USER}:${encodeURIComponent(password)}@`);

/** A cluster node's environment: the route password it requires, and the routes it dials with it. */
export function routeEnv(routes: string[], password: string): Record<string, string> {
  const urls = routes.map((url) => JSON.stringify(routeUrlWithCredentials(url, password)));
  return { [ROUTE_PASSWORD_VARIABLE]: natsString(password), [ROUTES_VARIABLE]: `[${urls.join(', ')}]` };
}

/**
 * The durability default, chosen by measurement (docs/RELIABILITY.md): JetStream
 * writes each message to disk before acknowledging it. nats-server's own default
 * (a flush every 2 minutes) can lose acknowledged messages on power loss.
 */
export const DEFAULT_SYNC_INTERVAL = 'always';

/** Route liveness: a cut route is noticed in seconds (the default is minutes), so a healed partition reconnects soon. */
const ROUTE_PING = ['  ping_interval: "2s"', '  ping_max: 3'];

/** A `tls {}` block, indented by `indent`; `verify`: the peer must present a certificate the CA signed. */
function renderTls(tls: NatsTlsFiles, indent: string, verify: boolean): string[] {
  return [
    'tls {',
    `  cert_file: ${JSON.stringify(tls.certFile)}`,
    `  key_file: ${JSON.stringify(tls.keyFile)}`,
    ...(verify ? [`  ca_file: ${JSON.stringify(tls.caFile)}`, '  verify: true'] : []),
    '  timeout: 2',
    '}',
  ].map((line) => indent + line);
}

/**
 * Routes authenticate: a node accepts a route only with the route user's password (and, with TLS, a certificate
 * the CA signed), so a server of someone else's cannot join the cluster and see every request and its token.
 */
function renderCluster(cluster: NatsClusterConfig, tls?: NatsTlsFiles): string[] {
  return [
    'cluster {',
    `  name: ${JSON.stringify(cluster.name)}`,
    `  listen: ${JSON.stringify(cluster.listen)}`,
    `  # ${cluster.routes.join(', ')}, with the route user's credentials`,
    `  routes: $${ROUTES_VARIABLE}`,
    `  authorization { user: ${ROUTE_USER}, password: $${ROUTE_PASSWORD_VARIABLE}, timeout: 2 }`,
    ...ROUTE_PING,
    ...(tls ? renderTls(tls, '  ', true) : []),
    '}',
  ];
}

/** nats-server configuration: JetStream on, payloads up to 1 MiB, users and permissions; a cluster when asked. */
export function renderNatsConfig(options: NatsConfigOptions): string {
  const syncInterval = options.syncInterval ?? DEFAULT_SYNC_INTERVAL;
  return [
    ...(options.serverName
      ? [`server_name: ${options.serverName.startsWith('$') ? options.serverName : JSON.stringify(options.serverName)}`]
      : []),
    `listen: ${JSON.stringify(options.listen)}`,
    ...(options.http ? [`http: ${JSON.stringify(options.http)}`] : []),
    'max_payload: 1048576',
    'jetstream {',
    `  store_dir: ${JSON.stringify(options.storeDir)}`,
    '  max_memory_store: 268435456',
    // Room for the streams' limits (provision.ts): three events streams of 1 GiB, the reference stream's 512 MiB.
    '  max_file_store: 8589934592',
    ...(syncInterval === 'default'
      ? []
      : [`  sync_interval: ${syncInterval === 'always' ? 'always' : JSON.stringify(syncInterval)}`]),
    '}',
    // Clients must speak TLS (a plaintext CONNECT gets "Secure Connection - TLS Required"); no client certificates.
    ...(options.tls ? renderTls(options.tls, '', false) : []),
    ...(options.cluster ? renderCluster(options.cluster, options.tls) : []),
    options.authorization ?? renderNatsAuthorization(options.systems),
    '',
  ].join('\n');
}

/** The docker compose NATS nodes (nats-1..3), each with the same generated file. */
export const COMPOSE_NATS_NODES = ['nats-1', 'nats-2', 'nats-3'];
/** Where compose mounts the files of `npm run certs` in every container that needs them. */
export const COMPOSE_TLS_MOUNT = '/etc/clinic/tls';

/** The configuration docker compose mounts into its NATS containers (deploy/nats/nats.conf), with the users of the
 * outside systems deploy/outside-systems.json declares. */
export function composeNatsConfig(): string {
  const systems = readOutsideSystems(join(REPO_ROOT, 'deploy', 'outside-systems.json'));
  return [
    '# GENERATED by `npm run gen:nats-config` from libs/contracts (nats-permissions.ts); do not edit.',
    '# Passwords come from the container environment: NATS_<USER>_PASSWORD (see docker-compose.yml);',
    '# nats-server refuses to start when one is not set. There are no defaults here.',
    '# NATS_SERVER_NAME names the node of the three-node cluster. TLS on the client port (required of every',
    '# client) and on the routes (each node verifies the others): the files of `npm run certs`, mounted by compose.',
    '# Routes also authenticate: NATS_ROUTE_PASSWORD, and NATS_ROUTES, the routes with it (docker-compose.yml).',
    '# Monitoring listens inside the container only, for its healthcheck.',
    renderNatsConfig({
      serverName: '$NATS_SERVER_NAME',
      listen: '0.0.0.0:4222',
      http: '127.0.0.1:8222',
      tls: {
        certFile: `${COMPOSE_TLS_MOUNT}/nats.crt`,
        keyFile: `${COMPOSE_TLS_MOUNT}/nats.key`,
        caFile: `${COMPOSE_TLS_MOUNT}/ca.crt`,
      },
      storeDir: '/data/jetstream',
      systems,
      cluster: {
        name: 'clinic',
        listen: '0.0.0.0:6222',
        routes: COMPOSE_NATS_NODES.map((node) => `nats://${node}:6222`),
      },
    }),
  ].join('\n');
}

const code = (subjects: string[] = []) => subjects.map((s) => `\`${s}\``).join(', ');

/** The "who may do what on NATS" table of docs/RELIABILITY.md: one row per user and purpose. */
export function renderPermissionsTable(): string {
  const specs = natsUserSpecs();
  const rows = Object.keys(specs).flatMap((user) => {
    const spec = specs[user]!;
    const answers =
      spec.allowResponses > 0 ? ` Answers requests: up to ${spec.allowResponses} messages to each reply subject.` : '';
    return spec.grants.map((grant, i) => {
      const who = i === 0 ? `**${user}**: ${spec.job}${answers}` : '';
      return `| ${who} | ${grant.purpose} | ${code(grant.publish)} | ${code(grant.subscribe)} |`;
    });
  });
  return ['| User | What for | May publish to | May subscribe to |', '|---|---|---|---|', ...rows].join('\n');
}

export const PERMISSIONS_TABLE_BEGIN =
  '<!-- BEGIN nats-permissions: generated by `npm run gen:nats-config` from libs/contracts/src/nats-permissions.ts; do not edit -->';
export const PERMISSIONS_TABLE_END = '<!-- END nats-permissions -->';

/** `doc` with the text between `begin` and `end` (marker lines of a generated part) replaced by `content`. */
export function replaceBetween(doc: string, begin: string, end: string, content: string): string {
  const from = doc.indexOf(begin);
  const to = doc.indexOf(end);
  if (from < 0 || to < from) throw new Error(`The document has no ${begin} ... ${end} markers`);
  return `${doc.slice(0, from + begin.length)}\n${content}\n${doc.slice(to)}`;
}

/** `doc` with the text between the table's markers replaced by the table rendered from the contracts. */
export function withPermissionsTable(doc: string): string {
  return replaceBetween(doc, PERMISSIONS_TABLE_BEGIN, PERMISSIONS_TABLE_END, renderPermissionsTable());
}
