import { nestsDeeperThan } from '../src/limits';

const nested = (depth: number): unknown =>
  depth === 0 ? 1 : depth % 2 ? [nested(depth - 1)] : { k: nested(depth - 1) };

describe('nestsDeeperThan', () => {
  it('counts objects and arrays, not scalars', () => {
    expect(nestsDeeperThan(1, 0)).toBe(false);
    expect(nestsDeeperThan(null, 0)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
    expect(nestsDeeperThan({}, 1)).toBe(false);
    expect(nestsDeeperThan({ items: [{ qty: 1 }] }, 3)).toBe(false);
    expect(nestsDeeperThan({ items: [{ qty: 1 }] }, 2)).toBe(true);
  });

  it('finds the deepest branch among wide ones', () => {
    const wide = { a: Array.from({ length: 1000 }, () => ({ x: 1 })), b: nested(10) };
    expect(nestsDeeperThan(wide, 11)).toBe(false);
    expect(nestsDeeperThan(wide, 10)).toBe(true);
  });

  it('handles depths that would overflow recursive code', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(nestsDeeperThan(deep, 32)).toBe(true);
  });
});
