/**
 * The gateway owns no data, so it loads no database code: '@clinic/service-kit'
 * is the kit's storage-free entry, and only services import
 * '@clinic/service-kit/storage'. Checked on the built code (npm run build) two
 * ways: every require the gateway's own and the kit's compiled modules can
 * reach, lazy ones included, and what Node really loads for the gateway's
 * module graph.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const GATEWAY_MAIN = join(__dirname, '..', 'dist', 'main.js');
const DATABASE_PACKAGES = ['mongodb', '@opentelemetry/instrumentation-mongodb'];

const packageOf = (specifier: string): string =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** The packages outside the repository that the compiled modules reachable from `entry` require. */
function packagesRequiredFrom(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const pending = [realpathSync(entry)];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const resolveFrom = createRequire(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/\brequire\(["']([^"']+)["']\)/g)) {
      if (!specifier || specifier.startsWith('node:')) continue;
      let resolved: string;
      try {
        resolved = realpathSync(resolveFrom.resolve(specifier));
      } catch {
        packages.add(packageOf(specifier)); // not installed here: still a dependency named in the code
        continue;
      }
      // The repository's own modules (the workspaces resolve through symlinks to their dist/) are followed.
      if (resolved.includes('/node_modules/')) packages.add(packageOf(specifier));
      else if (resolved.endsWith('.js')) pending.push(resolved);
    }
  }
  return packages;
}

/** The database packages Node has loaded after requiring `modules` in a fresh process. */
function databasePackagesLoadedBy(modules: string[]): string[] {
  const script = `
    for (const m of ${JSON.stringify(modules)}) require(m);
    const loaded = Object.keys(require.cache).filter((f) => /[\\\\/]node_modules[\\\\/](mongodb|@opentelemetry[\\\\/]instrumentation-mongodb)[\\\\/]/.test(f));
    process.stdout.write(JSON.stringify([...new Set(loaded.map((f) => f.replace(/.*node_modules[\\\\/]/, '').split(/[\\\\/]/).slice(0, f.includes('@opentelemetry') ? 2 : 1).join('/')))]));
  `;
  const env = { ...process.env, OTEL_SDK_DISABLED: 'true' };
  return JSON.parse(
    execFileSync(process.execPath, ['-e', script], { cwd: join(__dirname, '..'), env, encoding: 'utf8' }),
  );
}

it("requires no database package anywhere in the gateway's compiled module graph", () => {
  const packages = packagesRequiredFrom(GATEWAY_MAIN);
  expect(packages).toContain('fastify'); // the walk reaches the gateway's own dependencies
  expect(packages).toContain('nats'); // and the kit's
  expect(DATABASE_PACKAGES.filter((name) => packages.has(name))).toEqual([]);
});

it('the same walk finds the driver behind the storage entry', () => {
  const storageEntry = createRequire(GATEWAY_MAIN).resolve('@clinic/service-kit/storage');
  expect([...packagesRequiredFrom(storageEntry)].filter((name) => DATABASE_PACKAGES.includes(name))).toEqual(
    DATABASE_PACKAGES.slice(0, 1),
  );
});

it("loads no database package with the gateway's modules, as the storage entry does", () => {
  const gatewayModules = ['./dist/app.js', './dist/config.js', './dist/telemetry.js', '@clinic/service-kit'];
  expect(databasePackagesLoadedBy(gatewayModules)).toEqual([]);
  expect(databasePackagesLoadedBy(['@clinic/service-kit/storage'])).toEqual(['mongodb']);
});
