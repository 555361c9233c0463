/**
 * `npm run openapi`: writes the API's documents from libs/contracts, with no
 * running stack: docs/openapi.json (HTTP, as the gateway serves it at
 * /docs/json) and docs/asyncapi.json (NATS); `npm run build` makes the typed
 * client's types from docs/openapi.json. `--check` writes
 * nothing and exits 1 naming each file that differs from what would be
 * written (a test runs it, so a change to the contracts that was not
 * regenerated fails).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { asyncApiDocument } from '@clinic/contracts';
import { buildOpenApiDocument } from './openapi';

const REPO_ROOT = resolve(__dirname, '..', '..', '..');

export const API_DOCUMENT_FILES = {
  openapi: 'docs/openapi.json',
  asyncapi: 'docs/asyncapi.json',
} as const;

const json = (document: unknown) => `${JSON.stringify(document, null, 2)}\n`;

export async function apiDocuments(): Promise<Record<keyof typeof API_DOCUMENT_FILES, string>> {
  return { openapi: json(await buildOpenApiDocument()), asyncapi: json(asyncApiDocument()) };
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const documents = await apiDocuments();
  const stale: string[] = [];
  for (const [name, file] of Object.entries(API_DOCUMENT_FILES)) {
    const path = join(REPO_ROOT, file);
    const content = documents[name as keyof typeof API_DOCUMENT_FILES];
    let current: string | null = null;
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      // missing: stale
    }
    if (current === content) continue;
    stale.push(file);
    if (!check) writeFileSync(path, content);
  }
  if (check && stale.length > 0) {
    process.stderr.write(`Stale, run npm run openapi: ${stale.join(', ')}\n`);
    process.exit(1);
  }
  process.stderr.write(
    check ? 'API documents are up to date\n' : `written: ${stale.join(', ') || 'nothing changed'}\n`,
  );
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });
}
