/**
 * A service's adapter table: which method of its operations answers each
 * subject. The subjects are libs/contracts' (e.g. CatalogueSubjects); a method
 * is named by the subject's key, or mapped from it where the names differ.
 */
import type { Handler } from './responder';

/** The names of the methods of `T` that can answer a subject. */
type HandlerMethod<T> = { [M in keyof T]: T[M] extends Handler ? M : never }[keyof T] & string;

/**
 * Handlers for the subjects `methods` names: a list of subject keys each
 * answered by the method of that name, or a map from subject key to method.
 */
export function subjectHandlers<Key extends string, T>(
  subjects: Record<Key, string>,
  operations: T,
  methods: readonly (Key & HandlerMethod<T>)[] | Partial<Record<Key, HandlerMethod<T>>>,
): Record<string, Handler> {
  const entries: [Key, HandlerMethod<T>][] = Array.isArray(methods)
    ? methods.map((method) => [method, method])
    : (Object.entries(methods) as [Key, HandlerMethod<T>][]);
  return Object.fromEntries(
    entries.map(([key, method]) => {
      const handler = operations[method] as Handler;
      return [subjects[key], (request, ctx) => handler.call(operations, request, ctx)];
    }),
  );
}
