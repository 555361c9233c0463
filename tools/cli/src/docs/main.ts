/**
 * `npm run docs`: writes the reference generated from code, docs/indexes.md
 * (the services' index catalogues) and the table of docs/configuration.md
 * (the env schemas). `--check` writes nothing and exits 1 naming each stale
 * file (tools/cli/test/docs.test.ts checks the same).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@clinic/devstack';
import { generatedDocuments } from './documents';

const check = process.argv.includes('--check');
const stale: string[] = [];
for (const [file, text] of Object.entries(generatedDocuments())) {
  const path = join(REPO_ROOT, file);
  if (existsSync(path) && readFileSync(path, 'utf8') === text) continue;
  stale.push(file);
  if (!check) writeFileSync(path, text);
}
if (check && stale.length > 0) {
  process.stderr.write(`stale: ${stale.join(', ')} (run npm run docs)\n`);
  process.exitCode = 1;
} else process.stdout.write(stale.length > 0 ? `wrote ${stale.join(', ')}\n` : 'docs are fresh\n');
