// npm run token -- --sub 7 --role admin [--expires 1h] [--stores 1,2]; bare `npm run token`: an admin token for user 1.
// Prints a token signed for the running configuration (JWT_PRIVATE_KEY, JWT_SECRET, else the secret npm start
// made in DATA_DIR), for the gateway (Authorization: Bearer <token>) or a NATS request (`authorization` header).
import { dataDirFromEnv, parseDuration, parseStoreIds, signingKeyOf, signToken } from '@clinic/devstack';
import { readEnv, TOKEN_LIFETIME_ENV } from '@clinic/service-kit/internal';
import { fail, parseFlags } from './args';

const USAGE = 'usage: npm run token -- --sub <id> --role <role> [--expires 1h] [--stores 1,2]';

const HELP = `${USAGE}

Prints a token signed for the running configuration: RS256 with JWT_PRIVATE_KEY, HS256 with JWT_SECRET, else with
the secret npm start made in DATA_DIR (.data). Without arguments: an admin token for user 1.
  --sub <id>        the caller (an integer, or a text as identity providers give it)
  --role <role>     admin, receptionist, cashier, or a role of SESSION_WRITE_ROLES
  --expires <time>  its lifetime: 90s, 15m, 12h, 1d (default 1h; at most JWT_MAX_LIFETIME_S)
  --stores <ids>    the branches it is limited to (store_ids), e.g. 1,2; absent: every branch
With JWT_JWKS_URL set, tokens come from the identity provider: this command signs none.
`;

try {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(HELP);
    process.exit(0);
  }
  // A stack that takes an identity provider's tokens refuses any this command could sign: say so, sign nothing.
  if (process.env.JWT_JWKS_URL)
    fail(
      `npm run token cannot sign for this stack: JWT_JWKS_URL is set, so it takes only the identity provider's tokens (get one from ${process.env.JWT_ISSUER || process.env.JWT_JWKS_URL}).`,
      1,
    );
  // Bare, as the README's one request uses it: the development admin (user 1), said on stderr.
  const flags = args.length === 0 ? { sub: '1', role: 'admin' } : parseFlags(args);
  if (args.length === 0) process.stderr.write('An admin token for user 1 (other callers: --sub <id> --role <role>).\n');
  if (!flags.sub || !flags.role) fail(USAGE, 2);
  const sub = /^-?\d+$/.test(flags.sub) && Number.isSafeInteger(Number(flags.sub)) ? Number(flags.sub) : flags.sub;
  const expiresInSeconds = parseDuration(flags.expires ?? '1h');
  // --stores: the branches the token is limited to (store_ids); without it, every branch.
  const storeIds = flags.stores === undefined ? undefined : parseStoreIds(flags.stores);
  // The gateway and the services refuse longer-lived tokens.
  const maxSeconds = readEnv(TOKEN_LIFETIME_ENV).JWT_MAX_LIFETIME_S;
  if (expiresInSeconds > maxSeconds)
    throw new Error(
      `--expires ${flags.expires} is longer than the ${maxSeconds} s the services accept (JWT_MAX_LIFETIME_S)`,
    );
  const dataDir = dataDirFromEnv();
  const signing = signingKeyOf(dataDir);
  if (!signing)
    throw new Error(
      `No key to sign with: set JWT_SECRET (or JWT_PRIVATE_KEY), or start the stack once (npm start makes its secret in ${dataDir}; DATA_DIR names another folder)`,
    );
  process.stdout.write(`${signToken({ sub, role: flags.role, expiresInSeconds, storeIds }, signing)}\n`);
} catch (err) {
  fail(`${(err as Error).message}\n${USAGE}`, 2);
}
