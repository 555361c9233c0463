/**
 * `npm run certs` and npm start sign with one CA per installation (CA_DIR, else DATA_DIR/tls), and every private
 * file compose mounts is its owner's alone.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  COMPOSE_MONGO_NODES,
  COMPOSE_NATS_NODES,
  composePasswords,
  ensureCertificates,
  localNatsTls,
  makeComposeSecrets,
  REPO_ROOT,
} from '@clinic/devstack';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'clinic-certs-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;
const cert = (path: string) => new X509Certificate(readFileSync(path));
const certs = (args: string[], env: Record<string, string> = {}) =>
  execFileSync(process.execPath, [join(REPO_ROOT, 'tools', 'cli', 'dist', 'certs.js'), ...args], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
  });

it("signs compose's certificates with the CA npm start uses, DATA_DIR/tls, and leaves its key there", async () => {
  const dataDir = join(dir, 'data');
  const deploy = join(dir, 'deploy');
  expect(certs([deploy, '--hosts', 'clinic.example.org'], { DATA_DIR: dataDir })).toContain(join(dataDir, 'tls'));
  // npm start's NATS certificate (NATS_TLS=1), made afterwards in the same DATA_DIR.
  const local = await localNatsTls(dataDir, 1);
  const ca = readFileSync(join(dataDir, 'tls', 'ca.crt'), 'utf8');
  expect(readFileSync(join(deploy, 'ca.crt'), 'utf8')).toBe(ca);
  expect(readFileSync(local.caFile, 'utf8')).toBe(ca);
  expect(cert(local.certFile).checkIssued(new X509Certificate(ca))).toBe(true);
  for (const name of [...COMPOSE_NATS_NODES, ...COMPOSE_MONGO_NODES, 'gateway', 'https'])
    expect({ name, signed: cert(join(deploy, `${name}.crt`)).checkIssued(new X509Certificate(ca)) }).toEqual({
      name,
      signed: true,
    });
  expect(existsSync(join(deploy, 'ca.key'))).toBe(false);
  expect(existsSync(join(dataDir, 'tls', 'ca.key'))).toBe(true);
});

it('makes a certificate per NATS node and MongoDB member, each naming its own node only', async () => {
  await makeComposeSecrets(dir, { hosts: ['clinic.example.org'] });
  for (const node of COMPOSE_NATS_NODES) {
    const names = cert(join(dir, `${node}.crt`)).subjectAltName!.split(', ');
    expect(names).toEqual([`DNS:${node}`, 'DNS:localhost', 'IP Address:127.0.0.1', 'DNS:clinic.example.org']);
  }
  for (const node of COMPOSE_MONGO_NODES) {
    const member = cert(join(dir, `${node}.crt`));
    expect(member.subjectAltName!.split(', ')[0]).toBe(`DNS:${node}`);
    // Members are clients of each other: their certificates say so.
    expect(member.keyUsage).toContain('1.3.6.1.5.5.7.3.2');
    expect(readFileSync(join(dir, `${node}.pem`), 'utf8')).toMatch(/BEGIN CERTIFICATE[\s\S]+BEGIN PRIVATE KEY/);
  }
});

it('keeps every private file 0600 in a 0700 folder: keys, bundles, the key file and the passwords', async () => {
  const caDir = join(dir, 'ca');
  certs([join(dir, 'deploy'), '--ca', caDir]);
  expect(mode(join(dir, 'deploy'))).toBe(0o700);
  expect(mode(caDir)).toBe(0o700);
  const files = readdirSync(join(dir, 'deploy'));
  const publicFiles = files.filter((f) => f.endsWith('.crt'));
  expect(publicFiles).toContain('ca.crt');
  const privateFiles = files.filter((f) => !f.endsWith('.crt'));
  expect(privateFiles).toEqual(
    expect.arrayContaining(['nats-1.key', 'gateway.key', 'mongo-1.pem', 'https.pem', 'mongo-keyfile', 'jwt-secret']),
  );
  for (const file of privateFiles)
    expect({ file, mode: mode(join(dir, 'deploy', file)) }).toEqual({ file, mode: 0o600 });
  expect(mode(join(caDir, 'ca.key'))).toBe(0o600);
});

it('makes every password compose mounts: from the variable of its name when set (a former .env), else random', async () => {
  await makeComposeSecrets(dir, { env: { NATS_HOSPITAL_PASSWORD: 'given-to-the-lab-system' } });
  const passwords = composePasswords();
  expect(passwords.map((p) => p.file)).toEqual(
    expect.arrayContaining(['nats-gateway-password', 'nats-hospital-password', 'nats-route-password']),
  );
  expect(passwords.map((p) => p.file)).toEqual(
    expect.arrayContaining(['mongo-root-password', 'mongo-billing-password']),
  );
  expect(readFileSync(join(dir, 'nats-hospital-password'), 'utf8')).toBe('given-to-the-lab-system');
  const made = readFileSync(join(dir, 'nats-gateway-password'), 'utf8');
  expect(made).toMatch(/^[0-9a-f]{48}$/);
  // Kept on the next run.
  await makeComposeSecrets(dir, { env: { NATS_GATEWAY_PASSWORD: 'another' } });
  expect(readFileSync(join(dir, 'nats-gateway-password'), 'utf8')).toBe(made);
});

describe('a folder with a CA of its own, from before one CA per installation', () => {
  it('gives its CA to an installation that has none, so that clients trusting it keep working', async () => {
    const deploy = join(dir, 'deploy');
    const former = await ensureCertificates(deploy, []);
    const formerCa = readFileSync(former.caFile, 'utf8');
    await makeComposeSecrets(deploy, { caDir: join(dir, 'ca') });
    expect(readFileSync(join(dir, 'ca', 'ca.crt'), 'utf8')).toBe(formerCa);
    expect(readFileSync(join(deploy, 'ca.crt'), 'utf8')).toBe(formerCa);
    expect(existsSync(join(deploy, 'ca.key'))).toBe(false);
    expect(mode(join(dir, 'ca', 'ca.key'))).toBe(0o600);
  });

  it('is refused while the installation has another CA: which one to keep is the operator’s choice', async () => {
    const deploy = join(dir, 'deploy');
    await ensureCertificates(deploy, []);
    await ensureCertificates(join(dir, 'ca'), []);
    const before = readFileSync(join(deploy, 'ca.crt'), 'utf8');
    await expect(makeComposeSecrets(deploy, { caDir: join(dir, 'ca') })).rejects.toThrow(/holds a CA of its own/);
    expect(readFileSync(join(deploy, 'ca.crt'), 'utf8')).toBe(before);
    // The same CA in both (its key copied by hand): the copy of the key goes.
    writeFileSync(join(deploy, 'ca.crt'), readFileSync(join(dir, 'ca', 'ca.crt')));
    writeFileSync(join(deploy, 'ca.key'), readFileSync(join(dir, 'ca', 'ca.key')));
    await makeComposeSecrets(deploy, { caDir: join(dir, 'ca') });
    expect(existsSync(join(deploy, 'ca.key'))).toBe(false);
  });
});
