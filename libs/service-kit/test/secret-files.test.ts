import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ConnectionString from 'mongodb-connection-string-url';
import { serviceKitEnv } from '../src/process/config';
import { readEnv } from '../src/process/env';
import { withMongoPassword } from '../src/process/secret-files';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'clinic-secret-files-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A secret file as compose mounts it (editors and `echo` end it with a line break). */
function secret(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

const URL_WITHOUT_PASSWORD =
  'mongodb://billing@mongo-1:27017,mongo-2:27017,mongo-3:27017/?replicaSet=rs0&authSource=clinic_billing&tls=true';

it("reads a service's secrets from the files compose mounts, as the variables they stand for", () => {
  const env = readEnv(serviceKitEnv('billing'), {
    JWT_SECRET_FILE: secret('jwt-secret', 'a-long-enough-secret-of-this-installation\n'),
    NATS_PASSWORD_FILE: secret('nats-billing-password', 'nats pass "quoted"\n'),
    MONGO_URL: URL_WITHOUT_PASSWORD,
    MONGO_PASSWORD_FILE: secret('mongo-billing-password', 'p@ss:w/rd%\n'),
  });
  expect(env.JWT_SECRET).toBe('a-long-enough-secret-of-this-installation');
  expect(env.NATS_PASSWORD).toBe('nats pass "quoted"');
  // The driver's own parser finds the user, the password and every host.
  const url = new ConnectionString(env.MONGO_URL);
  expect({ user: url.username, password: decodeURIComponent(url.password), hosts: url.hosts }).toEqual({
    user: 'billing',
    password: 'p@ss:w/rd%',
    hosts: ['mongo-1:27017', 'mongo-2:27017', 'mongo-3:27017'],
  });
  expect(url.searchParams.get('replicaSet')).toBe('rs0');
});

it('takes MONGO_PASSWORD itself too, and leaves variables given directly as they are', () => {
  const env = readEnv(serviceKitEnv('billing'), {
    MONGO_URL: 'mongodb+srv://billing@db.example.org/',
    MONGO_PASSWORD: 'x',
    NATS_PASSWORD: 'y',
  });
  expect(env.MONGO_URL).toBe('mongodb+srv://billing:x@db.example.org/');
  expect(env.NATS_PASSWORD).toBe('y');
});

it('refuses what would be a guess: a variable and its file both, a file it cannot read or an empty one', () => {
  const read = (env: NodeJS.ProcessEnv) => () => readEnv(serviceKitEnv('billing'), env);
  expect(read({ JWT_SECRET: 'a', JWT_SECRET_FILE: secret('s', 'b') })).toThrow('Set JWT_SECRET or JWT_SECRET_FILE');
  expect(read({ NATS_PASSWORD_FILE: join(dir, 'missing') })).toThrow(/NATS_PASSWORD_FILE names .*missing/);
  expect(read({ NATS_PASSWORD_FILE: secret('empty', '\n') })).toThrow(/which is empty/);
  // A password without the user it belongs to, or a second password in the URL.
  expect(read({ MONGO_PASSWORD: 'x' })).toThrow('MONGO_PASSWORD is set without MONGO_URL');
  expect(read({ MONGO_PASSWORD: 'x', MONGO_URL: 'mongodb://mongo-1:27017/' })).toThrow(/names no user/);
  expect(() => withMongoPassword('mongodb://billing:old@mongo-1/', 'x')).toThrow(/holds a password too/);
});
