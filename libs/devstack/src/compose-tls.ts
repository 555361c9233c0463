import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureCertificates, type CertificateRequest } from './certs';
import { COMPOSE_NATS_NODES } from './nats-config';

/** The folder `npm run certs` fills by default and docker compose mounts from (TLS_DIR overrides); never committed. */
export const COMPOSE_TLS_DIR = 'deploy/tls';

/**
 * What compose's containers serve: the NATS nodes (clients and each other on
 * the routes), the gateways (behind the load balancer, which verifies them by
 * the name `gateway`), MongoDB, and the load balancer's HTTPS, which clients reach at
 * `hosts` (the names and addresses of the clinic's server).
 */
export function composeCertificates(hosts: string[] = []): CertificateRequest[] {
  return [
    { name: 'nats', hosts: [...COMPOSE_NATS_NODES, 'localhost', '127.0.0.1', ...hosts], clientAuth: true },
    { name: 'gateway', hosts: ['gateway', 'localhost', '127.0.0.1'] },
    // mongod takes its certificate and key in one file.
    { name: 'mongo', hosts: ['mongo', 'localhost', '127.0.0.1'], bundle: true },
    { name: 'https', hosts: ['localhost', '127.0.0.1', ...hosts], bundle: true },
  ];
}

/** MongoDB's replica-set key (members authenticate each other with it once access control is on). */
export const MONGO_KEYFILE = 'mongo-keyfile';

/**
 * The certificates and MongoDB key file compose mounts. Keys are 0644 inside
 * the 0700 folder: compose mounts each file alone into containers whose
 * processes run as other users (the gateway as `node`), while nobody else on
 * the host can reach into the folder. Existing files are kept (certs.ts).
 */
export async function makeComposeSecrets(dir: string, hosts: string[] = []): Promise<string[]> {
  const made = await ensureCertificates(dir, composeCertificates(hosts), { keyMode: 0o644 });
  const keyFile = join(dir, MONGO_KEYFILE);
  if (!existsSync(keyFile)) writeFileSync(keyFile, randomBytes(756).toString('base64'));
  chmodSync(keyFile, 0o644);
  return [made.caFile, ...Object.values(made.servers).flatMap((files) => [files.cert, files.key]), keyFile];
}
