import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { estimatedEntropyBits, publishedSecretReason, SECRET_MIN_ENTROPY_BITS } from '../src/internal';

it('scores random secrets high, and repeats, runs and short alphabets low', () => {
  for (let i = 0; i < 50; i++) {
    expect(estimatedEntropyBits(randomBytes(32).toString('base64url'))).toBeGreaterThanOrEqual(SECRET_MIN_ENTROPY_BITS);
    expect(estimatedEntropyBits(randomBytes(16).toString('hex'))).toBeGreaterThanOrEqual(SECRET_MIN_ENTROPY_BITS);
  }
  expect(estimatedEntropyBits('x'.repeat(100))).toBeLessThan(10);
  expect(
    estimatedEntropyBits(
      randomBytes(64)
        .toString('hex')
        .replace(/[2-9a-f]/g, '1'),
    ),
  ).toBeLessThan(SECRET_MIN_ENTROPY_BITS);
  expect(estimatedEntropyBits('01'.repeat(50))).toBeLessThan(SECRET_MIN_ENTROPY_BITS);
  expect(estimatedEntropyBits('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ')).toBeLessThan(
    SECRET_MIN_ENTROPY_BITS,
  );
  expect(estimatedEntropyBits('changeme'.repeat(6))).toBeLessThan(SECRET_MIN_ENTROPY_BITS);
  expect(estimatedEntropyBits('')).toBe(0);
});

describe('publishedSecretReason', () => {
  let repo: string;
  beforeAll(() => {
    repo = mkdtempSync(join(tmpdir(), 'clinic-secret-repo-'));
    execFileSync('git', ['init', '-q', repo]);
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  it('finds a secret written in a tracked file of the repository, and only there', () => {
    const published = randomBytes(32).toString('base64url');
    const untracked = randomBytes(32).toString('base64url');
    writeFileSync(join(repo, 'example.env'), `JWT_SECRET=${published}\n`);
    writeFileSync(join(repo, 'local.env'), `JWT_SECRET=${untracked}\n`);
    execFileSync('git', ['-C', repo, 'add', 'example.env']);
    expect(publishedSecretReason(published, repo)).toMatch(/appears in a file of the repository/);
    expect(publishedSecretReason(untracked, repo)).toBeNull();
    expect(publishedSecretReason(randomBytes(32).toString('base64url'), repo)).toBeNull();
  });

  it('knows the secrets the repository once published by their digest, with no repository at hand', () => {
    const former = ['dev', 'only', 'insecure', 'jwt', 'secret', 'change', 'me'].join('-');
    expect(publishedSecretReason(former, null)).toMatch(/published in this repository/);
    expect(publishedSecretReason(randomBytes(32).toString('base64url'), null)).toBeNull();
  });
});
