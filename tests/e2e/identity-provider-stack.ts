/**
 * A hospital's identity provider for the end-to-end tests: a real OpenID Provider (node-oidc-provider,
 * tests/e2e/oidc-provider.mjs, a process of its own) issuing access tokens by the client credentials grant, with
 * Keycloak-like claims (the roles in `realm_access.roles`, the branches in `store_ids`), and a stack that takes its
 * tokens (JWT_JWKS_URL, its issuer, the audience).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import { join } from 'node:path';
import { HTTP_ROUTES } from '@clinic/contracts';
import { REPO_ROOT, waitFor } from '@clinic/devstack';
import type { Call } from './branch-transport';
import { branch } from './fixtures';
import { startTestStack, type TestStack } from './harness';

export const AUDIENCE = 'urn:clinic:api';

export interface Provider {
  issuer: string;
  /** Times its keys were fetched. */
  jwksFetches: () => number;
  token(client: string, resource?: string): Promise<string>;
  stop(): Promise<void>;
}

export const clients = {
  desk: {
    secret: randomBytes(24).toString('base64url'),
    claims: { realm_access: { roles: ['offline_access', 'cashier'] }, store_ids: [1] },
  },
  manager: {
    secret: randomBytes(24).toString('base64url'),
    claims: { realm_access: { roles: ['admin', 'uma_authorization'] } },
  },
  // A directory entry nobody gave branches: no store_ids claim at all.
  'no-branch': {
    secret: randomBytes(24).toString('base64url'),
    claims: { realm_access: { roles: ['cashier'] } },
  },
  // A role claim of text, holding what the directory holds rather than one of this system's roles.
  'odd-role': {
    secret: randomBytes(24).toString('base64url'),
    claims: { realm_access: { roles: 'superuser' }, store_ids: [1] },
  },
};

export function signingKey(kind: 'rsa' | 'ec', kid: string): { private: JsonWebKey; pem: string } {
  const pair =
    kind === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = pair.privateKey.export({ format: 'jwk' });
  return {
    private: { ...jwk, kid, alg: kind === 'rsa' ? 'RS256' : 'ES256', use: 'sig' },
    pem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/** The provider as a process of its own, on `port`, signing with the first of `keys` (`alg`). */
export async function startProvider(port: number, keys: JsonWebKey[], alg: 'RS256' | 'ES256'): Promise<Provider> {
  const issuer = `http://127.0.0.1:${port}`;
  const config = { port, issuer, keys, alg, resources: [AUDIENCE, 'urn:other:api'], clients };
  const child: ChildProcess = spawn(process.execPath, [join(REPO_ROOT, 'tests', 'e2e', 'oidc-provider.mjs')], {
    env: { ...process.env, OIDC_PROVIDER: JSON.stringify(config) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  await waitFor(
    'the OpenID Provider to listen',
    async () => out.includes('listening') || child.exitCode !== null,
    20_000,
    50,
  );
  if (!out.includes('listening')) throw new Error(`OpenID Provider exited:\n${out}`);
  return {
    issuer,
    jwksFetches: () => out.split('\n').filter((line) => line === 'jwks').length,
    async token(client, resource = AUDIENCE) {
      const { secret } = clients[client as keyof typeof clients];
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${client}:${secret}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope: 'api' }),
      });
      const body = (await response.json()) as { access_token?: string };
      if (!body.access_token) throw new Error(`no token: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export const charges = HTTP_ROUTES.find((r) => r.method === 'GET' && r.url === '/hospital_charges')!;
export const chargesOf = (store: number): Call => ({ query: { store_id: String(store) } });

/** A stack taking the provider's tokens (and `env`), seeded with branch 1. */
export async function identityStack(provider: Provider, env: Record<string, string> = {}): Promise<TestStack> {
  const t = await startTestStack({
    env: {
      JWT_JWKS_URL: `${provider.issuer}/jwks`,
      JWT_ISSUER: provider.issuer,
      JWT_AUDIENCE: AUDIENCE,
      JWT_ROLE_CLAIM: 'realm_access.roles',
      ...env,
    },
  });
  await t.seed({ stores: [branch(1, 'Colombo')] });
  return t;
}

/** A token's header: its algorithm and key id. */
export const headerOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString());
