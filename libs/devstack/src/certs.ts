/**
 * A local certificate authority and the server certificates it signs, for NATS with TLS (npm start, tests) and
 * docker compose (npm run certs): one CA per installation, files kept while valid (docs/operations.md: TLS and certificates).
 */
import 'reflect-metadata';
import { webcrypto, X509Certificate as NodeCertificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import * as x509 from '@peculiar/x509';

// Node's WebCrypto (this repository's TypeScript settings have no DOM types, hence the aliases and the cast).
type Key = webcrypto.CryptoKey;
x509.cryptoProvider.set(webcrypto as unknown as ReturnType<typeof x509.cryptoProvider.get>);

const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' };
const SIGNING_ALGORITHM = { name: 'ECDSA', hash: 'SHA-256' };
const DAY_MS = 86_400_000;
/** The CA lives ten years; a server certificate 397 days (the longest browsers accept) and is renewed in its last 30. */
const CA_DAYS = 3650;
const SERVER_DAYS = 397;
const RENEW_DAYS = 30;

export interface CertificateRequest {
  /** The files are `<name>.crt` and `<name>.key` (and `<name>.pem`, both in one, with `bundle`). */
  name: string;
  /** DNS names and IP addresses clients reach the server at; the first is its common name. */
  hosts: string[];
  /** Also a TLS client with this certificate (NATS nodes connecting their routes to each other). */
  clientAuth?: boolean;
  /** Also write `<name>.pem`: the certificate then the key (what HAProxy takes). */
  bundle?: boolean;
}

export interface CertificateFiles {
  cert: string;
  key: string;
}

export interface LocalCertificates {
  /** The CA's certificate: what every client trusts. */
  caFile: string;
  /** By request name. */
  servers: Record<string, CertificateFiles>;
}

export interface CertificateOptions {
  /** The folder of the CA that signs (`ca.crt`, `ca.key`; made there when missing): by default the same folder. */
  caDir?: string;
}

/** Every private key file: its owner's alone (compose's containers take copies of their own, docs/operations.md). */
const KEY_MODE = 0o600;

interface Authority {
  cert: x509.X509Certificate;
  key: Key;
}

/** PEM text ending in a line break, so that files concatenate into a valid bundle. */
const pem = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);

const pemKey = async (key: Key) =>
  pem(x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY'));

function importKey(pem: string): Promise<Key> {
  return webcrypto.subtle.importKey('pkcs8', x509.PemConverter.decodeFirst(pem), KEY_ALGORITHM, true, ['sign']);
}

function newKeys(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
}

function writeKey(path: string, pem: string): void {
  writeFileSync(path, pem, { mode: KEY_MODE });
  chmodSync(path, KEY_MODE);
}

/** `dir` made, or taken back, readable by its owner alone. */
function ownerOnlyDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

async function authority(dir: string): Promise<Authority> {
  const certPath = join(dir, 'ca.crt');
  const keyPath = join(dir, 'ca.key');
  if (existsSync(certPath) && existsSync(keyPath)) {
    return {
      cert: new x509.X509Certificate(readFileSync(certPath, 'utf8')),
      key: await importKey(readFileSync(keyPath, 'utf8')),
    };
  }
  const keys = await newKeys();
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=Clinic local CA',
    keys,
    signingAlgorithm: SIGNING_ALGORITHM,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + CA_DAYS * DAY_MS),
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  writeKey(keyPath, await pemKey(keys.privateKey));
  writeFileSync(certPath, pem(cert.toString('pem')));
  return { cert, key: keys.privateKey };
}

/** The hosts a certificate names (its subjectAltName), as "DNS:x" and "IP Address:y". */
const namesOf = (hosts: string[]) => hosts.map((h) => (isIP(h) ? `IP Address:${h}` : `DNS:${h}`));

function stillGood(path: string, ca: Authority, hosts: string[]): boolean {
  if (!existsSync(path)) return false;
  const cert = new NodeCertificate(readFileSync(path));
  const names = new Set((cert.subjectAltName ?? '').split(', '));
  return (
    cert.checkIssued(new NodeCertificate(ca.cert.toString('pem'))) &&
    namesOf(hosts).every((name) => names.has(name)) &&
    new Date(cert.validTo).getTime() - Date.now() > RENEW_DAYS * DAY_MS
  );
}

async function issue(ca: Authority, request: CertificateRequest): Promise<{ cert: string; key: string }> {
  const keys = await newKeys();
  const now = Date.now();
  const usages = [x509.ExtendedKeyUsage.serverAuth, ...(request.clientAuth ? [x509.ExtendedKeyUsage.clientAuth] : [])];
  const cert = await x509.X509CertificateGenerator.create({
    subject: `CN=${request.hosts[0] ?? request.name}`,
    issuer: ca.cert.subject,
    publicKey: keys.publicKey,
    signingKey: ca.key,
    signingAlgorithm: SIGNING_ALGORITHM,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + SERVER_DAYS * DAY_MS),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension(usages),
      new x509.SubjectAlternativeNameExtension(request.hosts.map((h) => ({ type: isIP(h) ? 'ip' : 'dns', value: h }))),
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert: pem(cert.toString('pem')), key: await pemKey(keys.privateKey) };
}

/**
 * Makes what is missing or stale in `dir` (created 0700): the CA in `caDir` (a copy of its certificate in `dir`),
 * then each server certificate.
 */
export async function ensureCertificates(
  dir: string,
  requests: CertificateRequest[],
  options: CertificateOptions = {},
): Promise<LocalCertificates> {
  const caDir = options.caDir ?? dir;
  ownerOnlyDir(dir);
  ownerOnlyDir(caDir);
  const ca = await authority(caDir);
  const caCopy = join(dir, 'ca.crt');
  const caPem = pem(ca.cert.toString('pem'));
  if (resolve(caDir) !== resolve(dir) && (!existsSync(caCopy) || readFileSync(caCopy, 'utf8') !== caPem))
    writeFileSync(caCopy, caPem);
  const servers: Record<string, CertificateFiles> = {};
  for (const request of requests) {
    const files = { cert: join(dir, `${request.name}.crt`), key: join(dir, `${request.name}.key`) };
    const bundle = join(dir, `${request.name}.pem`);
    if (
      !stillGood(files.cert, ca, request.hosts) ||
      !existsSync(files.key) ||
      (request.bundle && !existsSync(bundle))
    ) {
      const made = await issue(ca, request);
      writeFileSync(files.cert, made.cert);
      writeKey(files.key, made.key);
      if (request.bundle) writeKey(bundle, made.cert + made.key);
    }
    servers[request.name] = files;
  }
  return { caFile: join(dir, 'ca.crt'), servers };
}
