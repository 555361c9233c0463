/** JSON from outside (an HTTP body, a request message): parsed once, the same way, wherever it arrives. */
import sjson from 'secure-json-parse';
import { nestsDeeperThan } from '@clinic/contracts';

/** What was wrong with a text that is not taken: not JSON, prototype-poisoning keys, or nested too deep. */
export type StrictJsonProblem = 'invalid' | 'poisoned' | 'too deep';

export type StrictJson = { ok: true; value: unknown } | { ok: false; problem: StrictJsonProblem };

/**
 * Parses JSON that must not carry `__proto__` or `constructor.prototype` keys
 * (refused, not stripped: the sender is told) nor nest objects and arrays
 * deeper than `maxDepth`.
 */
export function parseStrictJson(text: Buffer, maxDepth: number): StrictJson {
  let value: unknown;
  try {
    value = sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (err) {
    return {
      ok: false,
      problem: err instanceof SyntaxError && /forbidden/i.test(err.message) ? 'poisoned' : 'invalid',
    };
  }
  return nestsDeeperThan(value, maxDepth) ? { ok: false, problem: 'too deep' } : { ok: true, value };
}
