// npm run token -- --sub 7 --role admin [--expires 1h]
// Prints a token signed for the running configuration (JWT_PRIVATE_KEY, JWT_SECRET or the development default).
import { parseDuration, signToken } from '@clinic/devstack';
import { fail, parseFlags } from './args';

const USAGE = 'usage: npm run token -- --sub <id> --role <role> [--expires 1h]';

try {
  const flags = parseFlags(process.argv.slice(2));
  if (!flags.sub || !flags.role) fail(USAGE, 2);
  const sub = /^-?\d+$/.test(flags.sub) && Number.isSafeInteger(Number(flags.sub)) ? Number(flags.sub) : flags.sub;
  const expiresInSeconds = parseDuration(flags.expires ?? '1h');
  process.stdout.write(`${signToken({ sub, role: flags.role, expiresInSeconds })}\n`);
} catch (err) {
  fail(`${(err as Error).message}\n${USAGE}`, 2);
}
