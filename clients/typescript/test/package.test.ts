/**
 * @clinic/client as a web app gets it: `npm pack` writes a package
 * (it builds first), installed here into an app folder of its own; it loads as
 * CommonJS and as an ES module, answers a 304 as `notModified` rather than an
 * error, and the README's examples compile against it under `strict`, resolved
 * as a bundler (Vite, Next) and as Node's ES modules resolve it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CLIENT = join(__dirname, '..');
const REPO_ROOT = join(CLIENT, '..', '..');
let dir: string;
let app: string;
let packed: { files: Array<{ path: string }> };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'clinic-client-'));
  const pack = spawnSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: CLIENT, encoding: 'utf8' });
  if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  [packed] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('[')));
  // The app's node_modules: the package as npm would unpack it, and its dependencies.
  app = join(dir, 'app');
  const scope = join(app, 'node_modules', '@clinic');
  mkdirSync(scope, { recursive: true });
  const tarball = join(dir, (packed as unknown as { filename: string }).filename);
  expect(spawnSync('tar', ['-xzf', tarball, '-C', scope]).status).toBe(0);
  renameSync(join(scope, 'package'), join(scope, 'client'));
  for (const dependency of ['openapi-fetch', 'openapi-typescript-helpers'])
    symlinkSync(join(REPO_ROOT, 'node_modules', dependency), join(app, 'node_modules', dependency));
}, 120_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('packs a CommonJS build, an ES-module build and the types of both, and no source', () => {
  const files = packed.files.map((file) => file.path);
  expect(files).toEqual(
    expect.arrayContaining([
      'package.json',
      'README.md',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/schema.d.ts',
      'dist/esm/index.js',
      'dist/esm/index.d.ts',
      'dist/esm/schema.d.ts',
      'dist/esm/package.json',
    ]),
  );
  expect(files.filter((file) => file.startsWith('src/') || file.endsWith('.map'))).toEqual([]);
  const manifest = JSON.parse(readFileSync(join(app, 'node_modules', '@clinic', 'client', 'package.json'), 'utf8'));
  expect(manifest.private).toBeUndefined();
  expect(Object.keys(manifest.dependencies)).toEqual(['openapi-fetch', 'openapi-typescript-helpers']);
});

it('loads with require and with import', () => {
  const run = (args: string[]) => spawnSync(process.execPath, args, { cwd: app, encoding: 'utf8' });
  const required = run(['-e', "process.stdout.write(typeof require('@clinic/client').createClinicClient)"]);
  expect(required.stdout).toBe('function');
  const imported = run([
    '--input-type=module',
    '-e',
    "import { createClinicClient } from '@clinic/client'; process.stdout.write(typeof createClinicClient)",
  ]);
  expect(imported.stderr).toBe('');
  expect(imported.stdout).toBe('function');
});

it('answers a 304 as notModified, with neither data nor an error, and a 200 with its data', async () => {
  const etag = '"bill-12-v3"';
  const server = createServer((request, response) => {
    if (request.headers['if-none-match'] === etag) response.writeHead(304, { etag }).end();
    else response.writeHead(200, { etag, 'content-type': 'application/json' }).end('{"success":true,"bill":{"id":12}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { createClinicClient } = require(join(app, 'node_modules', '@clinic', 'client'));
    const api = createClinicClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    const read = (header: Record<string, string>) =>
      api.GET('/lab_bills/{bill_id}', { params: { path: { bill_id: 12 }, header } });
    const current = await read({ 'If-None-Match': etag });
    expect({ ...current, response: current.response.status }).toEqual({ notModified: true, response: 304 });
    const fresh = await read({});
    expect({ data: fresh.data, error: fresh.error, notModified: fresh.notModified }).toEqual({
      data: { success: true, bill: { id: 12 } },
      error: undefined,
      notModified: undefined,
    });
  } finally {
    server.close();
  }
});

/** The README's TypeScript examples, each a module of its own. */
function readmeExamples(): string[] {
  const readme = readFileSync(join(CLIENT, 'README.md'), 'utf8');
  return [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/** What the README says stands for the app's own. */
const APP_OWN = `
declare const session: { token: string };
declare const cached: { etag: string; bill: { bill_number: string } };
declare function show(...values: unknown[]): void;
declare function showError(...values: unknown[]): void;
`;

it.each([
  ['bundler', { module: 'ESNext', moduleResolution: 'Bundler' }, 'ts'],
  ['node16', { module: 'Node16', moduleResolution: 'Node16' }, 'mts'],
])(
  'compiles the README examples under strict, resolved as %s',
  (_name, resolution, extension) => {
    const examples = readmeExamples();
    expect(examples.length).toBeGreaterThanOrEqual(2);
    const files = examples.map((example, i) => {
      const file = `readme-${i + 1}.${extension}`;
      writeFileSync(join(app, file), `${example}\n${APP_OWN}`);
      return file;
    });
    const tsconfig = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'ES2022',
        lib: ['ES2022', 'DOM'],
        types: [],
        ...resolution,
      },
      files,
    };
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(tsconfig));
    const check = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', app], { encoding: 'utf8' });
    expect(check.stdout).toBe('');
    expect(check.status).toBe(0);
  },
  60_000,
);
