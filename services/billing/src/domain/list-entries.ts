/** A list field of a body whose entries are objects: each read in turn, a fault named by its place (`checks[0].rule`). */
import { FIELD_MESSAGES } from '@clinic/contracts';
import { requireObject, type PlainObject } from '@clinic/service-kit';

export function eachEntry<T>(
  list: readonly unknown[],
  field: string,
  read: (entry: PlainObject, at: (name: string) => string) => T,
): T[] {
  return list.map((raw, i) => {
    const entry = requireObject(raw, FIELD_MESSAGES.notObject(`${field}[${i}]`), `${field}[${i}]`);
    return read(entry, (name) => `${field}[${i}].${name}`);
  });
}
