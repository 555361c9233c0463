/**
 * The house's import rules (.dependency-cruiser.cjs) bite: depcruise, run as `npm run deps` runs it, fails on a
 * small service that breaks them and passes the same service laid out as the rules ask.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from '@clinic/devstack';

type Files = Record<string, string>;

/** depcruise's answer on a service of these files (paths from a repository's root), with the house's config. */
function cruise(files: Files): { status: number | null; output: string } {
  const root = mkdtempSync(join(tmpdir(), 'import-rules-'));
  try {
    writeFileSync(join(root, 'tsconfig.base.json'), JSON.stringify({ compilerOptions: { strict: true } }));
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), text);
    }
    const config = join(REPO_ROOT, '.dependency-cruiser.cjs');
    const bin = join(REPO_ROOT, 'node_modules', '.bin', 'depcruise');
    const run = spawnSync(bin, ['services', '--config', config, '--output-type', 'err'], {
      cwd: root,
      encoding: 'utf8',
    });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const SRC = 'services/fixture/src';
const LAID_OUT: Files = {
  [`${SRC}/domain/bill.ts`]: 'export interface Bill { id: number }\n',
  [`${SRC}/domain/rules.ts`]: "import type { Bill } from './bill';\nexport const isBill = (b: Bill) => b.id > 0;\n",
  [`${SRC}/views/bill-view.ts`]:
    "import type { Bill } from '../domain/bill';\nexport const billView = (b: Bill) => ({ id: b.id });\n",
  [`${SRC}/storage/bills.ts`]: "import type { Bill } from '../domain/bill';\nexport const stored = (b: Bill) => b;\n",
  [`${SRC}/operations/bills.ts`]:
    "import { billView } from '../views/bill-view';\nimport { stored } from '../storage/bills';\nexport const show = (id: number) => billView(stored({ id }));\n",
};

it('passes a service laid out as the rules ask', () => {
  const { status, output } = cruise(LAID_OUT);
  expect(output).toContain('no dependency violations');
  expect(status).toBe(0);
});

const BROKEN: Array<[string, string, Files]> = [
  [
    'a circle closed by a type-only import',
    'no-circular',
    {
      [`${SRC}/domain/bill.ts`]:
        "import type { isBill } from './rules';\nexport interface Bill { id: number; ok?: typeof isBill }\n",
    },
  ],
  [
    'storage that imports a view',
    'storage-imports-domain-only',
    {
      [`${SRC}/storage/bills.ts`]:
        "import type { Bill } from '../domain/bill';\nimport { billView } from '../views/bill-view';\nexport const stored = (b: Bill) => billView(b) && b;\n",
    },
  ],
  [
    'a domain that imports storage',
    'domain-is-pure',
    {
      [`${SRC}/domain/rules.ts`]:
        "import type { Bill } from './bill';\nimport { stored } from '../storage/bills';\nexport const isBill = (b: Bill) => stored(b).id > 0;\n",
    },
  ],
];

it.each(BROKEN)('fails on %s (%s)', (_case, rule, change) => {
  const { status, output } = cruise({ ...LAID_OUT, ...change });
  expect(output).toContain(rule);
  expect(status).not.toBe(0);
});
