/**
 * What operators run stands apart from the dev and test stack: loading the built @clinic/ops (npm run build) loads
 * nothing of libs/devstack or testcontainers. (depcruise cannot tell: it leaves out every dist/.)
 */
import { execFileSync } from 'node:child_process';
import { join, sep } from 'node:path';

test('loading @clinic/ops loads nothing of the dev stack', () => {
  const entry = join(__dirname, '..', 'dist', 'index.js');
  const script = `require(${JSON.stringify(entry)}); process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
  const env = { ...process.env, OTEL_SDK_DISABLED: 'true' };
  const loaded: string[] = JSON.parse(execFileSync(process.execPath, ['-e', script], { env, encoding: 'utf8' }));
  expect(loaded.some((file) => file.includes(`${sep}libs${sep}ops${sep}`))).toBe(true);
  const devStack = /[\\/](libs[\\/]devstack|node_modules[\\/]testcontainers)[\\/]/;
  expect(loaded.filter((file) => devStack.test(file))).toEqual([]);
});
