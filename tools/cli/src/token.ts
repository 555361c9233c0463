// npm run token -- --sub 7 --role admin [--expires 1h]; bare `npm run token`: an admin token for user 1.
// Prints a token signed for the running configuration (JWT_PRIVATE_KEY, JWT_SECRET or the development default),
// for the gateway (Authorization: Bearer <token>) or a NATS request (`authorization` header).
import { parseDuration, signToken } from '@clinic/devstack';
import { tokenPolicyFromEnv } from '@clinic/service-kit/internal';
import { fail, parseFlags } from './args';

const USAGE = 'usage: npm run token -- --sub <id> --role <role> [--expires 1h]';

try {
  const args = process.argv.slice(2);
  // Bare, as the README's first steps use it: the development admin (user 1), said on stderr.
  const flags = args.length === 0 ? { sub: '1', role: 'admin' } : parseFlags(args);
  if (args.length === 0) process.stderr.write('An admin token for user 1 (other callers: --sub <id> --role <role>).\n');
  if (!flags.sub || !flags.role) fail(USAGE, 2);
  const sub = /^-?\d+$/.test(flags.sub) && Number.isSafeInteger(Number(flags.sub)) ? Number(flags.sub) : flags.sub;
  const expiresInSeconds = parseDuration(flags.expires ?? '1h');
  // The gateway and the services refuse longer-lived tokens.
  const maxSeconds = tokenPolicyFromEnv().maxLifetimeSeconds;
  if (expiresInSeconds > maxSeconds)
    throw new Error(
      `--expires ${flags.expires} is longer than the ${maxSeconds} s the services accept (JWT_MAX_LIFETIME_S)`,
    );
  process.stdout.write(`${signToken({ sub, role: flags.role, expiresInSeconds })}\n`);
} catch (err) {
  fail(`${(err as Error).message}\n${USAGE}`, 2);
}
