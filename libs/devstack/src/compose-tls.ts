import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SERVICE_NAMES } from '@clinic/contracts';
import { ensureCertificates, type CertificateRequest } from './certs';
import {
  COMPOSE_NATS_NODES,
  composeNatsUsers,
  passwordVariable,
  ROUTE_PASSWORD_VARIABLE,
  ROUTES_VARIABLE,
} from './nats-config';
import { JWT_SECRET_FILE, natsPasswordFile } from './secrets';

/** The folder `npm run certs` fills by default and docker compose mounts from (TLS_DIR overrides); never committed. */
export const COMPOSE_TLS_DIR = 'deploy/tls';

/** The members of compose's MongoDB replica set. */
export const COMPOSE_MONGO_NODES = ['mongo-1', 'mongo-2', 'mongo-3'];
/** Compose's MongoDB metrics exporter: its service, certificate and X.509 user (`CN=mongodb-exporter`). */
export const MONGO_EXPORTER = 'mongodb-exporter';

const LOOPBACK = ['localhost', '127.0.0.1'];

/**
 * What compose's containers serve, each with a certificate of its own that names it: every NATS node (clients and
 * the other nodes on the routes; `hosts` too, for other hospital systems), the gateways (behind the load balancer,
 * which verifies them by the name `gateway`), every MongoDB member (clients, and the other members, to which it is
 * a client too), and the load balancer's HTTPS, which clients reach at `hosts` (the clinic's server's names and
 * addresses).
 */
export function composeCertificates(hosts: string[] = []): CertificateRequest[] {
  return [
    ...COMPOSE_NATS_NODES.map((node) => ({ name: node, hosts: [node, ...LOOPBACK, ...hosts], clientAuth: true })),
    { name: 'gateway', hosts: ['gateway', ...LOOPBACK] },
    // mongod takes its certificate and key in one file.
    ...COMPOSE_MONGO_NODES.map((node) => ({ name: node, hosts: [node, ...LOOPBACK], clientAuth: true, bundle: true })),
    { name: 'https', hosts: [...LOOPBACK, ...hosts], bundle: true },
    // The database's metrics exporter signs in with this certificate (MONGODB-X509): no password to hand it.
    { name: MONGO_EXPORTER, hosts: [MONGO_EXPORTER], clientAuth: true, bundle: true },
  ];
}

/** MongoDB's replica-set key (members authenticate each other with it once access control is on). */
export const MONGO_KEYFILE = 'mongo-keyfile';

/** A compose secret holding a password: its file, and the variable that gives its value when the file is new. */
export interface ComposePassword {
  file: string;
  variable: string;
}

/** MongoDB's password of a user of compose's (`root`, or a service's). */
export const mongoPasswordFile = (user: string): string => `mongo-${user}-password`;
export const NATS_ROUTE_PASSWORD_FILE = 'nats-route-password';

/** Every password compose's containers take as a secret (docker-compose.yml `secrets:`). */
export function composePasswords(): ComposePassword[] {
  return [
    ...composeNatsUsers().map((user) => ({ file: natsPasswordFile(user), variable: passwordVariable(user) })),
    { file: NATS_ROUTE_PASSWORD_FILE, variable: ROUTE_PASSWORD_VARIABLE },
    ...['root', ...SERVICE_NAMES].map((user) => ({
      file: mongoPasswordFile(user),
      variable: `MONGO_${user.toUpperCase()}_PASSWORD`,
    })),
    { file: JWT_SECRET_FILE, variable: 'JWT_SECRET' },
  ];
}

export interface ComposeSecretsOptions {
  /** Names and addresses clients reach the clinic's server at (its HTTPS, and NATS for other systems). */
  hosts?: string[];
  /** The installation's CA (DATA_DIR/tls unless CA_DIR); by default `dir`'s own. */
  caDir?: string;
  /** Where a password missing from `dir` is taken from before one is made (the variables of a former `.env`). */
  env?: NodeJS.ProcessEnv;
}

/**
 * A CA `dir` holds from before CAs were one per installation: it becomes the installation's when that has none yet
 * (clients that trust it keep working); when both have one, keeping either is the operator's choice.
 */
function adoptFormerCa(dir: string, caDir: string): void {
  const key = join(dir, 'ca.key');
  if (resolve(dir) === resolve(caDir) || !existsSync(key)) return;
  const installed = join(caDir, 'ca.crt');
  mkdirSync(caDir, { recursive: true, mode: 0o700 });
  if (!existsSync(installed) || !existsSync(join(caDir, 'ca.key'))) {
    for (const file of ['ca.crt', 'ca.key']) copyFileSync(join(dir, file), join(caDir, file));
    chmodSync(join(caDir, 'ca.key'), 0o600);
  } else if (readFileSync(installed, 'utf8') !== readFileSync(join(dir, 'ca.crt'), 'utf8')) {
    throw new Error(
      `${dir} holds a CA of its own (ca.key) and the installation's CA is another, ${caDir}: remove ${key} to sign ` +
        `with the installation's (clients then trust its ca.crt), or name ${dir} as the CA with --ca or CA_DIR`,
    );
  }
  rmSync(key);
}

const writeSecret = (path: string, text: string) => {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
};

/**
 * Every file compose mounts: the certificates (signed by the installation's CA, whose certificate is copied here),
 * MongoDB's key file and the passwords, each private file 0600 in the 0700 folder. Existing files are kept
 * (certs.ts); a new password is the variable of its name when set, else 24 random bytes in hex (safe in a URL).
 */
export async function makeComposeSecrets(dir: string, options: ComposeSecretsOptions = {}): Promise<string[]> {
  const caDir = options.caDir ?? dir;
  adoptFormerCa(dir, caDir);
  const made = await ensureCertificates(dir, composeCertificates(options.hosts), { caDir });
  const secrets = [
    { file: MONGO_KEYFILE, make: () => randomBytes(756).toString('base64') },
    ...composePasswords().map(({ file, variable }) => ({
      file,
      make: () => options.env?.[variable] || randomBytes(24).toString('hex'),
    })),
  ];
  for (const { file, make } of secrets) {
    const path = join(dir, file);
    if (existsSync(path)) chmodSync(path, 0o600);
    else writeSecret(path, make());
  }
  return [
    made.caFile,
    ...Object.values(made.servers).flatMap((files) => [files.cert, files.key]),
    ...secrets.map(({ file }) => join(dir, file)),
  ];
}

/**
 * The entrypoint of compose's NATS nodes (deploy/nats/entrypoint.sh, written by `npm run gen:nats-config`):
 * nats.conf takes each password from a variable, compose gives them as secrets, so this reads each file into its
 * variable, quoted as nats.conf reads a variable's value (natsString), builds the routes with the route password
 * (routeEnv), and runs its arguments (nats-server) with them: they are in nats-server's environment alone.
 */
export function composeNatsEntrypoint(): string {
  const nats = composePasswords().filter(({ file }) => file.startsWith('nats-'));
  const routes = COMPOSE_NATS_NODES.map((node) => `\\"nats://route:$route@${node}:6222\\"`).join(', ');
  return [
    '#!/bin/sh',
    '# GENERATED by `npm run gen:nats-config` (libs/devstack/src/compose-tls.ts); do not edit.',
    "# The entrypoint of docker-compose.yml's NATS nodes: reads the passwords compose mounts as secrets (files of",
    '# `npm run certs`) into the variables deploy/nats/nats.conf names, then runs its arguments (nats-server).',
    'set -eu',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's ${VAR:-default}, not a template
    'dir=${NATS_SECRETS_DIR:-/run/secrets}',
    `for secret in ${nats.map(({ file }) => file).join(' ')}; do`,
    '  [ -s "$dir/$secret" ] || { echo "nats: no secret $secret in $dir (npm run certs makes it)" >&2; exit 1; }',
    'done',
    '# nats-server reads a variable\'s value as config: quoted, so that 12-... is no date; its \\ and " escaped.',
    'quoted() { printf \'"%s"\' "$(sed \'s/[\\\\"]/\\\\&/g\' "$dir/$1")"; }',
    ...nats.map(({ file, variable }) => `${variable}=$(quoted ${file})`),
    `route=$(cat "$dir/${NATS_ROUTE_PASSWORD_FILE}")`,
    'case $route in',
    '  *[!A-Za-z0-9._~-]*) echo "nats: the route password goes into URLs: letters, digits and . _ ~ - only" >&2; exit 1 ;;',
    'esac',
    `${ROUTES_VARIABLE}="[${routes}]"`,
    `export ${[...nats.map(({ variable }) => variable), ROUTES_VARIABLE].join(' ')}`,
    'exec "$@"',
    '',
  ].join('\n');
}
