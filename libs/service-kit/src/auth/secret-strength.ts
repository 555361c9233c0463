/**
 * What NODE_ENV=production refuses as an HS256 secret besides a short one: a
 * secret that is easy to guess, and a secret anyone can read because it was
 * published. Checked once, at start.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Below this estimate a secret counts as guessable. A random 32-character hex string scores about 160. */
export const SECRET_MIN_ENTROPY_BITS = 96;

/** Bits per character of the alphabet a secret draws from: the classes of characters it holds. */
function alphabetBits(secret: string): number {
  const classes: Array<[RegExp, number]> = [
    [/[a-z]/, 26],
    [/[A-Z]/, 26],
    [/[0-9]/, 10],
    [/[\x20-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/, 33],
    [/[^\x20-\x7e]/, 100],
  ];
  return Math.log2(classes.reduce((size, [pattern, count]) => size + (pattern.test(secret) ? count : 0), 0) || 1);
}

/** Repeats shorter than this are taken as chance, longer ones as copies of what came before. */
const REPEAT_MIN_LENGTH = 3;
const ESTIMATE_MAX_LENGTH = 1024;

/**
 * How many symbols are new: a left-to-right scan that skips every stretch
 * (of 3 or more) repeating an earlier part of the text, as LZ77 would copy it.
 */
function novelSymbols(symbols: readonly number[]): number {
  let novel = 0;
  for (let i = 0; i < symbols.length; ) {
    let longest = 0;
    for (let start = 0; start < i; start++) {
      let length = 0;
      while (i + length < symbols.length && symbols[start + length] === symbols[i + length]) length++;
      longest = Math.max(longest, length);
    }
    if (longest >= REPEAT_MIN_LENGTH) {
      i += longest;
    } else {
      novel++;
      i++;
    }
  }
  return novel;
}

/**
 * An estimate of the bits of entropy of a secret: the bits of its alphabet
 * (the classes of characters it holds) times the characters that are new,
 * neither repeating an earlier stretch nor continuing a regular run (counted
 * on the steps between consecutive characters, as in `abcdef` or `13579`).
 * One repeated character, a repeated word or a run scores low; so does a short
 * alphabet, whose random strings soon repeat themselves.
 */
export function estimatedEntropyBits(secret: string): number {
  const codes = [...secret].slice(0, ESTIMATE_MAX_LENGTH).map((c) => c.codePointAt(0) ?? 0);
  if (codes.length < 2) return 0;
  const steps = codes.slice(1).map((code, i) => code - (codes[i] ?? 0));
  return Math.floor(alphabetBits(secret) * Math.min(novelSymbols(codes), novelSymbols(steps) + 1));
}

/**
 * SHA-256 digests of secrets this repository has published (in code, tests or
 * docs, now or in its history), kept as digests so that the strings
 * themselves are not published again: the former development default and the
 * tests' former fixed secrets.
 */
const PUBLISHED_SECRET_DIGESTS = new Set([
  '80c0b5af0724d5e64e0b6da7b4f093730ae7367174a60608cb1e3ac30ac3c91f',
  '52cfabd15a35fe2b63f2d268e27c2aba642db12b5eb0f431087187c7b969527f',
  'ee470bf519ea5d79935920e80234ceb32baad20d188e6c53391e5913c511cb8a',
]);

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The repository this code runs from, when it runs from a git checkout (not in a production image). */
function repositoryRoot(from = __dirname): string | null {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return null;
  }
}

/**
 * Whether a tracked text file of the repository holds the secret (`git grep`,
 * the pattern given on stdin so that it never shows in a process list). Null
 * when there is no repository or no git to ask.
 */
function inTrackedFiles(secret: string, root: string): boolean | null {
  if (secret.includes('\n')) return null;
  try {
    execFileSync('git', ['-C', root, 'grep', '--quiet', '-I', '-F', '-f', '-'], {
      input: `${secret}\n`,
      stdio: ['pipe', 'ignore', 'ignore'],
      timeout: 10_000,
    });
    return true;
  } catch (err) {
    // git grep exits 1 when nothing matches; anything else means it could not look.
    return (err as { status?: number }).status === 1 ? false : null;
  }
}

/** Why a secret is refused in production, or null when it is not. */
export function publishedSecretReason(secret: string, root = repositoryRoot()): string | null {
  if (PUBLISHED_SECRET_DIGESTS.has(sha256(secret))) return 'it has been published in this repository';
  if (root && inTrackedFiles(secret, root)) return `it appears in a file of the repository (${root})`;
  return null;
}
