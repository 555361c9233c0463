/**
 * The client's ECMAScript-module build, beside tsc's CommonJS one in dist/: each module of src/ transpiled by
 * esbuild (no bundling: openapi-fetch stays an import a bundler can share and tree-shake) into dist/esm, which a
 * package.json of its own marks as modules, with tsc's declarations beside them. Run by `npm pack` (prepack), after tsc.
 */
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const src = new URL('./src/', import.meta.url);
const dist = new URL('./dist/', import.meta.url);
const esm = new URL('./esm/', dist);
mkdirSync(esm, { recursive: true });
const modules = readdirSync(src).filter((name) => name.endsWith('.ts'));
await build({
  entryPoints: modules.map((name) => new URL(name, src).pathname),
  outdir: esm.pathname,
  format: 'esm',
  platform: 'neutral',
  target: 'es2020',
  bundle: false,
});
writeFileSync(new URL('package.json', esm), `${JSON.stringify({ type: 'module' })}\n`);
for (const name of modules) {
  const declaration = name.replace(/\.ts$/, '.d.ts');
  copyFileSync(new URL(declaration, dist), new URL(declaration, esm));
}
