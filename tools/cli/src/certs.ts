// npm run certs -- [DIR] [--hosts clinic.example.org,10.1.2.3]
// The local CA, the TLS certificates and the MongoDB key file docker compose mounts (docs/operations.md: Docker compose).
import { isAbsolute, join, relative } from 'node:path';
import { COMPOSE_TLS_DIR, makeComposeSecrets, REPO_ROOT } from '@clinic/devstack';
import { fail, parseFlags } from './args';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const dirArg = args[0] && !args[0].startsWith('--') ? args.shift() : undefined;
  let flags: Record<string, string>;
  try {
    flags = parseFlags(args);
  } catch (err) {
    fail(`${(err as Error).message}\nusage: npm run certs -- [DIR] [--hosts name,address...]`, 2);
  }
  const dir = dirArg ? (isAbsolute(dirArg) ? dirArg : join(process.cwd(), dirArg)) : join(REPO_ROOT, COMPOSE_TLS_DIR);
  const hosts = (flags.hosts ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  const files = await makeComposeSecrets(dir, hosts);
  process.stdout.write(
    [
      `In ${dir} (kept when already there and still good):`,
      ...files.map((file) => `  ${relative(dir, file)}`),
      hosts.length > 0
        ? `The load balancer's and NATS's certificates also name: ${hosts.join(', ')}.`
        : 'Name the hosts clients reach the clinic at with --hosts (default: localhost only).',
      'Clients of the HTTPS port and of NATS trust ca.crt; replace https.pem with a certificate of your own CA if you have one.',
      '',
    ].join('\n'),
  );
}

main().catch((err: unknown) => fail(`npm run certs failed: ${(err as Error).message}`));
