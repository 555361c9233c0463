/**
 * What many operations share, stated once under the document's components and
 * referred to by `$ref` elsewhere: each failure answer (the same for every
 * operation that gives its status) and the named reply shapes (NAMED_SCHEMAS,
 * which @fastify/swagger writes to components.schemas). The document means
 * the same; the client's types generated from it (clients/typescript) get one
 * type for each instead of a copy in every operation.
 */
import { STATUS_CODES } from 'node:http';
import type { OpenApiObject } from './openapi-object';

// biome-ignore lint/suspicious/noExplicitAny: a part of the OpenAPI document, edited in place below
type Part = Record<string, any>;

/** 'Payload Too Large' (413) → 'PayloadTooLarge'. */
function responseName(status: string): string {
  return (STATUS_CODES[status] ?? `Status ${status}`).replace(/[^A-Za-z0-9]+/g, ' ').replace(/ /g, '');
}

/** Every answer but a success is named once when more than one operation gives it alike. */
function nameSharedResponses(document: OpenApiObject, components: Part): void {
  const operations: Part[] = Object.values(document.paths ?? {}).flatMap((item) => Object.values(item));
  const byStatus = new Map<string, Map<string, number>>();
  for (const operation of operations)
    for (const [status, response] of Object.entries<Part>(operation.responses ?? {})) {
      if (status.startsWith('2') || '$ref' in response) continue;
      const alike = byStatus.get(status) ?? new Map<string, number>();
      const text = JSON.stringify(response);
      alike.set(text, (alike.get(text) ?? 0) + 1);
      byStatus.set(status, alike);
    }
  const responses: Part = {};
  for (const [status, alike] of [...byStatus].sort(([a], [b]) => a.localeCompare(b))) {
    const [text, uses] = [...alike].sort((a, b) => b[1] - a[1])[0]!;
    if (uses < 2) continue;
    const name = responseName(status);
    responses[name] = JSON.parse(text);
    for (const operation of operations)
      if (JSON.stringify(operation.responses?.[status]) === text)
        operation.responses[status] = { $ref: `#/components/responses/${name}` };
  }
  if (Object.keys(responses).length > 0) components.responses = { ...components.responses, ...responses };
}

/** Replaces each part that is one of the named schemas, as a whole, with a reference to it. */
function referNamedSchemas(part: unknown, named: Map<string, string>): void {
  if (typeof part !== 'object' || part === null) return;
  for (const [key, value] of Object.entries(part as Part)) {
    const name = typeof value === 'object' && value !== null ? named.get(JSON.stringify(value)) : undefined;
    if (name) (part as Part)[key] = { $ref: `#/components/schemas/${name}` };
    else referNamedSchemas(value, named);
  }
}

export function nameSharedParts(document: OpenApiObject): void {
  const components = (document.components ?? {}) as Part;
  document.components = components;
  const schemas: Part = components.schemas ?? {};
  const named = new Map<string, string>();
  for (const [name, schema] of Object.entries(schemas)) {
    // @fastify/swagger titles each shared schema with its $id; the name says it already.
    if (schema.title === name) delete schema.title;
    named.set(JSON.stringify(schema), name);
  }
  referNamedSchemas(document.paths, named);
  for (const [name, schema] of Object.entries(schemas))
    referNamedSchemas(schema, new Map([...named].filter(([, other]) => other !== name)));
  nameSharedResponses(document, components);
}
