import { createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
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
  const first = await ensureCertificates(dir, [{ name: 'gateway', hosts: ['gateway'] }]);
  expect(mode(first.servers.gateway!.key)).toBe(0o600);
  const before = readFileSync(first.servers.gateway!.cert, 'utf8');
  const ca = readFileSync(first.caFile, 'utf8');
  await ensureCertificates(dir, [{ name: 'gateway', hosts: ['gateway'] }]);
  expect(readFileSync(first.servers.gateway!.cert, 'utf8')).toBe(before);
  await ensureCertificates(dir, [{ name: 'gateway', hosts: ['gateway', 'localhost'] }]);
  const after = read(first.servers.gateway!.cert);
  expect(after.subjectAltName).toBe('DNS:gateway, DNS:localhost');
  expect(readFileSync(first.caFile, 'utf8')).toBe(ca);
});

it("signs with another folder's CA: the certificate's folder gets its ca.crt and never its key", async () => {
  const caDir = join(dir, 'ca');
  const made = await ensureCertificates(join(dir, 'certs'), [{ name: 'gateway', hosts: ['gateway'] }], { caDir });
  expect(made.caFile).toBe(join(dir, 'certs', 'ca.crt'));
  expect(readFileSync(made.caFile, 'utf8')).toBe(readFileSync(join(caDir, 'ca.crt'), 'utf8'));
  expect(existsSync(join(dir, 'certs', 'ca.key'))).toBe(false);
  expect(mode(join(caDir, 'ca.key'))).toBe(0o600);
  expect(mode(caDir)).toBe(0o700);
  expect(read(made.servers.gateway!.cert).checkIssued(read(join(caDir, 'ca.crt')))).toBe(true);
  // A certificate of a former CA is made again, by this one.
  const other = await ensureCertificates(join(dir, 'other'), [{ name: 'gateway', hosts: ['gateway'] }]);
  const signedByOther = await ensureCertificates(join(dir, 'certs'), [{ name: 'gateway', hosts: ['gateway'] }], {
    caDir: join(dir, 'other'),
  });
  expect(read(signedByOther.servers.gateway!.cert).checkIssued(read(other.caFile))).toBe(true);
  expect(readFileSync(signedByOther.caFile, 'utf8')).toBe(readFileSync(other.caFile, 'utf8'));
});
