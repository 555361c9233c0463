import { join } from 'node:path';
import type { NatsSettings } from '@clinic/service-kit';
import { ensureCertificates } from './certs';
import type { Infrastructure, NatsNodeNetwork } from './infra';
import type { NatsTlsFiles } from './nats-config';

/** Where the local CA and certificates of a stack live: DATA_DIR/tls, kept across starts. */
export const tlsDir = (dataDir: string) => join(dataDir, 'tls');

/**
 * The certificate every local NATS node serves (and presents to the others on
 * its routes): signed by the stack's local CA, naming loopback and each node's
 * client and route addresses (tests put a node in a network namespace).
 */
export async function localNatsTls(
  dataDir: string,
  nodes: number,
  network?: (node: number) => NatsNodeNetwork,
): Promise<NatsTlsFiles> {
  const hosts = new Set(['127.0.0.1', 'localhost']);
  for (let i = 0; i < nodes; i++) {
    const where = network?.(i);
    if (where) {
      hosts.add(where.clientHost);
      hosts.add(where.clusterHost);
    }
  }
  const made = await ensureCertificates(tlsDir(dataDir), [{ name: 'nats', hosts: [...hosts], clientAuth: true }]);
  const files = made.servers.nats!;
  return { certFile: files.cert, keyFile: files.key, caFile: made.caFile };
}

/** A certificate for the gateway's HTTPS on loopback, signed by the stack's local CA (tests, bench). */
export async function localGatewayTls(dataDir: string): Promise<{ certFile: string; keyFile: string; caFile: string }> {
  const made = await ensureCertificates(tlsDir(dataDir), [{ name: 'gateway', hosts: ['127.0.0.1', 'localhost'] }]);
  const files = made.servers.gateway!;
  return { certFile: files.cert, keyFile: files.key, caFile: made.caFile };
}

/** How a client connects to the stack's NATS as `user`: its URL, password and, with TLS, the CA to verify against. */
export function natsClientSettings(infra: Infrastructure, user: string): NatsSettings {
  return { url: infra.natsUrl, user, password: infra.natsPasswords[user], tlsCaFile: infra.natsTlsCaFile };
}
