// npm run certs -- [DIR] [--hosts clinic.example.org,10.1.2.3] [--ca CA_DIR]
// What docker compose mounts (docs/operations.md: Docker compose): TLS certificates signed by the installation's CA
// (CA_DIR, else DATA_DIR/tls: the one npm start uses), MongoDB's key file and every password, each file 0600.
import { isAbsolute, join, relative, resolve } from 'node:path';
import { COMPOSE_TLS_DIR, installationCaDir, makeComposeSecrets, REPO_ROOT } from '@clinic/devstack';
import { fail, parseFlags } from './args';

const USAGE = 'usage: npm run certs -- [DIR] [--hosts name,address...] [--ca CA_DIR]';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const dirArg = args[0] && !args[0].startsWith('--') ? args.shift() : undefined;
  let flags: Record<string, string>;
  try {
    flags = parseFlags(args);
  } catch (err) {
    fail(`${(err as Error).message}\n${USAGE}`, 2);
  }
  const unknown = Object.keys(flags).filter((flag) => flag !== 'hosts' && flag !== 'ca');
  if (unknown.length > 0) fail(`Unknown flag --${unknown[0]}\n${USAGE}`, 2);
  const dir = dirArg ? (isAbsolute(dirArg) ? dirArg : join(process.cwd(), dirArg)) : join(REPO_ROOT, COMPOSE_TLS_DIR);
  const caDir = flags.ca ? resolve(flags.ca) : installationCaDir();
  const hosts = (flags.hosts ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  const files = await makeComposeSecrets(dir, { hosts, caDir, env: process.env });
  process.stdout.write(
    [
      `In ${dir} (kept when already there and still good; private files 0600):`,
      ...files.map((file) => `  ${relative(dir, file)}`),
      `Signed by the installation's CA in ${caDir} (its key stays there; npm start signs with it too).`,
      hosts.length > 0
        ? `The load balancer's and NATS's certificates also name: ${hosts.join(', ')}.`
        : 'Name the hosts clients reach the clinic at with --hosts (default: localhost only).',
      'Clients of the HTTPS port and of NATS trust ca.crt; replace https.pem with a certificate of your own CA if you have one.',
      '',
    ].join('\n'),
  );
}

main().catch((err: unknown) => fail(`npm run certs failed: ${(err as Error).message}`));
