/**
 * `npm run token` as the people who run the stack meet it: `--help` prints the usage, and a stack that takes an
 * identity provider's tokens (JWT_JWKS_URL) gets one line saying this command cannot sign for it, not a token it
 * would refuse. Runs the built script (npm test builds first), as npm run token does.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const SCRIPT = join(__dirname, '..', 'dist', 'token.js');

function token(args: string[], env: Record<string, string> = {}) {
  const { JWT_SECRET: _secret, JWT_PRIVATE_KEY: _key, JWT_JWKS_URL: _url, ...rest } = process.env;
  return spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', env: { ...rest, ...env } });
}

it('prints its usage for --help and exits 0', () => {
  const help = token(['--help']);
  expect(help.stderr).toBe('');
  expect(help.stdout).toMatch(/^usage: npm run token -- --sub <id> --role <role>/);
  expect(help.stdout).toContain('--stores <ids>');
  expect(help.status).toBe(0);
  expect(token(['-h']).stdout).toBe(help.stdout);
});

it('says in one line that it cannot sign for a stack under an identity provider, and exits non-zero', () => {
  const env = { JWT_SECRET: 'a-secret-it-must-not-use-0123456789', JWT_JWKS_URL: 'https://idp.example/certs' };
  for (const args of [[], ['--sub', '7', '--role', 'cashier']]) {
    const refused = token(args, { ...env, JWT_ISSUER: 'https://idp.example/realms/clinic' });
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      "npm run token cannot sign for this stack: JWT_JWKS_URL is set, so it takes only the identity provider's tokens (get one from https://idp.example/realms/clinic).\n",
    );
    expect(refused.status).toBe(1);
  }
});

it('still signs with JWT_SECRET otherwise', () => {
  const signed = token(['--sub', '7', '--role', 'cashier'], { JWT_SECRET: 'a-secret-of-this-test-0123456789abc' });
  expect(signed.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
  expect(signed.status).toBe(0);
});
