/**
 * The item at an index the caller knows to be in range: a row of a parallel
 * array of the same length, or the index a driver reported. With
 * noUncheckedIndexedAccess an index read may be undefined; this one says why
 * it is not, and throws a RangeError rather than let undefined through.
 */
export function itemAt<T>(items: readonly T[], index: number): T {
  if (!Number.isInteger(index) || index < 0 || index >= items.length) {
    throw new RangeError(`index ${index} outside an array of ${items.length}`);
  }
  return items[index] as T;
}
