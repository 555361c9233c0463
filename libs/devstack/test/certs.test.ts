import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCertificates } from '../src/certs';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'clinic-certs-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const read = (path: string) => new X509Certificate(readFileSync(path));
const mode = (path: string) => statSync(path).mode & 0o777;

it('makes a CA and server certificates it signs, naming each host, with owner-only keys', async () => {
  const made = await ensureCertificates(dir, [
    { name: 'nats', hosts: ['nats-1', '127.0.0.1'], clientAuth: true },
    { name: 'https', hosts: ['clinic.example.org'], bundle: true },
  ]);
  const ca = read(made.caFile);
  expect(ca.ca).toBe(true);
  const nats = read(made.servers.nats!.cert);
  expect(nats.ca).toBe(false);
  expect(nats.checkIssued(ca)).toBe(true);
  expect(nats.verify(ca.publicKey)).toBe(true);
  expect(nats.subjectAltName).toBe('DNS:nats-1, IP Address:127.0.0.1');
  expect(nats.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
  expect(read(made.servers.https!.cert).keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
  expect(nats.checkPrivateKey(createPrivateKey(readFileSync(made.servers.nats!.key)))).toBe(true);
  expect(readFileSync(join(dir, 'https.pem'), 'utf8')).toMatch(/BEGIN CERTIFICATE[\s\S]+BEGIN PRIVATE KEY/);
  expect(mode(dir)).toBe(0o700);
  for (const key of ['ca.key', 'nats.key', 'https.key', 'https.pem']) expect(mode(join(dir, key))).toBe(0o600);
});

it('keeps what is still good and makes again a certificate whose hosts changed', async () => {
  const first = await ensureCertificates(dir, [{ name: 'gateway', hosts: ['gateway'] }], { keyMode: 0o644 });
  // Keys other containers mount may be readable (inside the 0700 folder); the CA's key never is.
  expect(mode(first.servers.gateway!.key)).toBe(0o644);
  expect(mode(join(dir, 'ca.key'))).toBe(0o600);
  const before = readFileSync(first.servers.gateway!.cert, 'utf8');
  const ca = readFileSync(first.caFile, 'utf8');
  await ensureCertificates(dir, [{ name: 'gateway', hosts: ['gateway'] }]);
  expect(readFileSync(first.servers.gateway!.cert, 'utf8')).toBe(before);
  await ensureCertificates(dir, [{ name: 'gateway', hosts: ['gateway', 'localhost'] }]);
  const after = read(first.servers.gateway!.cert);
  expect(after.subjectAltName).toBe('DNS:gateway, DNS:localhost');
  expect(readFileSync(first.caFile, 'utf8')).toBe(ca);
});
