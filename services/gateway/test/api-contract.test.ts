/**
 * docs/openapi.json as tools this project did not choose read it:
 * Redocly CLI's recommended ruleset (redocly.yaml) reports no error and no
 * warning; every example is valid against its schema with ajv's JSON Schema
 * 2020-12 validator as it comes; and a second generator (@hey-api/openapi-ts,
 * beside the client's openapi-typescript) makes a client that a small program
 * compiles against under `strict`. Reads the committed file, which
 * api-documents.test.ts proves current.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

const REPO_ROOT = join(__dirname, '..', '..', '..');
const DOCUMENT = join(REPO_ROOT, 'docs', 'openapi.json');
const document = JSON.parse(readFileSync(DOCUMENT, 'utf8'));

it('passes Redocly CLI lint with the recommended ruleset: no error, no warning', () => {
  const lint = spawnSync(
    process.execPath,
    [require.resolve('@redocly/cli/bin/cli.js'), 'lint', 'docs/openapi.json', '--format=json'],
    {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      // No telemetry, no look-up of a newer version: nothing leaves the machine.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  );
  const report = JSON.parse(lint.stdout);
  expect(report.problems).toEqual([]);
  expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  expect(lint.status).toBe(0);
}, 60_000);

/** Every schema holding an `example`, with where it is. */
function examples(part: unknown, at: string, found: Array<{ at: string; schema: object; example: unknown }> = []) {
  if (typeof part !== 'object' || part === null) return found;
  const node = part as Record<string, unknown>;
  const isSchema = ['type', 'properties', 'anyOf', '$ref', 'items', 'enum'].some((key) => key in node);
  if ('example' in node && isSchema) {
    const { example, ...schema } = node;
    found.push({ at, schema, example });
  }
  for (const [key, value] of Object.entries(node)) if (key !== 'example') examples(value, `${at}/${key}`, found);
  return found;
}

it('has every example valid against its schema, with default ajv (JSON Schema 2020-12)', () => {
  // As it comes: strict, no ownProperties; taught only the formats the document uses and OpenAPI's `example`.
  const ajv = new Ajv2020();
  addFormats(ajv);
  ajv.addFormat('binary', true);
  ajv.addVocabulary(['example']);
  for (const [name, schema] of Object.entries(document.components.schemas))
    ajv.addSchema(schema as object, `#/components/schemas/${name}`);
  const all = [...examples(document.paths, '#/paths'), ...examples(document.components, '#/components')];
  const invalid = all
    .filter(({ schema, example }) => !ajv.validate(schema, example))
    .map(({ at }) => ({ at, errors: ajv.errorsText() }));
  expect(invalid).toEqual([]);
  // Each documented request body with an example among them: what schema-driven forms and mocks check first.
  const bodies = all.filter(({ at }) => at.endsWith('/requestBody/content/application/json/schema'));
  expect(bodies.length).toBeGreaterThanOrEqual(8);
  expect(all.length).toBeGreaterThan(100);
});

/** Compiled against the generated client under strict: calls, answers, exact error codes, 429's envelope, typos. */
const PROGRAM = `
import { createClient } from './client';
import { createLabBill, getLabBill, updateLabBill } from './sdk.gen';
import type { CreateLabBillErrors, GetLabBillErrors } from './types.gen';

const client = createClient({ baseUrl: 'http://127.0.0.1:3000', auth: () => 'a-token' });

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// createLabBill's 400 lists its own codes, not every 400 of the API.
export const exact: Same<Extract<CreateLabBillErrors[400]['code'], 'DOCTOR_NO_BRANCH' | 'BAD_ENVELOPE'>, never> = true;
// 429 comes with the envelope, so the error union keeps its shape.
export const limited: GetLabBillErrors[429]['code'] = 'RATE_LIMITED';

export async function billNumber(billId: number): Promise<string> {
  const read = await getLabBill({ client, path: { bill_id: billId } });
  if (read.error) return read.error.code + ': ' + read.error.error;
  return read.data.bill.bill_number;
}

export async function create(storeId: number, chargeId: number): Promise<number | string> {
  const made = await createLabBill({
    client,
    headers: { 'Idempotency-Key': 'front-desk-1' },
    body: {
      patient_name: 'Nimal Fernando',
      patient_contact: '0771234567',
      bill_date: '2094-11-21',
      payment_method: 'Cash',
      store_id: storeId,
      items: [{ charge_id: chargeId, charge_name: 'CBC', unit_price: 850, qty: 1 }],
    },
  });
  return made.data ? made.data.bill_id : (made.error?.field ?? 'failed');
}

export async function markPaid(billId: number, etag: string): Promise<void> {
  await updateLabBill({ client, path: { bill_id: billId }, headers: { 'If-Match': etag }, body: { payment_status: 'Paid' } });
  // @ts-expect-error a misspelt field does not compile: every body is closed
  await updateLabBill({ client, path: { bill_id: billId }, body: { paymnet_status: 'Paid' } });
}
`;

it('generates a client with @hey-api/openapi-ts that a small program compiles against under strict', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clinic-hey-api-'));
  try {
    const generate = spawnSync(
      process.execPath,
      [
        join(REPO_ROOT, 'node_modules', '@hey-api', 'openapi-ts', 'bin', 'run.js'),
        '-i',
        DOCUMENT,
        '-o',
        dir,
        '-c',
        '@hey-api/client-fetch',
      ],
      { encoding: 'utf8', cwd: dir, env: { ...process.env, NO_COLOR: '1' } },
    );
    expect(generate.status).toBe(0);
    writeFileSync(join(dir, 'program.ts'), PROGRAM);
    const tsconfig = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'ES2022',
        module: 'ESNext',
        moduleResolution: 'Bundler',
        lib: ['ES2022', 'DOM', 'DOM.Iterable'],
        types: [],
        skipLibCheck: false,
      },
      files: ['program.ts'],
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
    const check = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
    expect(check.stdout).toBe('');
    expect(check.status).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
