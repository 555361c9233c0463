/** The failure envelope's schemas: `{success: false, error, code, field?}`, with the codes of each status. */
import { codesOfStatus } from '../error-codes';
import { approvalNeededSchema } from './approvals';
import type { JsonSchema } from './common';

/** A failure answered with `status`: its `code` is one of `codes`, by default every code of that status (error-codes.ts). */
export function failureSchemaFor(status: number, codes: readonly string[] = codesOfStatus(status)): JsonSchema {
  return {
    type: 'object',
    required: ['success', 'error', 'code'],
    properties: {
      success: { type: 'boolean', enum: [false] },
      error: { type: 'string', description: "the spec's text" },
      code: { type: 'string', enum: [...codes], description: 'what the failure is, for a program' },
      field: { type: 'string', description: 'the request field at fault, as `items[0].qty`', example: 'items[0].qty' },
      ...(status === 403 ? { approval: approvalNeededSchema } : {}),
    },
  };
}

/** Responses every authenticated route can give besides its own (400: a malformed request, such as a body that is not JSON). */
export function standardFailures(...extra: number[]): Record<string, JsonSchema> {
  const statuses = [...new Set([400, 401, 403, 500, 503, 504, ...extra])];
  return Object.fromEntries(statuses.map((status) => [String(status), failureSchemaFor(status)]));
}
