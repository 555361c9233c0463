/** What a route of the public HTTP API is: the gateway registers it and documents it, forwarding to its NATS subject. */
import type { Access, BranchScopeRule } from './access';
import type { JsonSchema } from './schemas/common';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface HttpRoute {
  /** The OpenAPI operationId: what generated clients name the call. */
  operationId: string;
  method: HttpMethod;
  /** Fastify path syntax. */
  url: string;
  subject: string;
  access: Access;
  /** How it keeps to the branches of a token with `store_ids` (BRANCH_SCOPE_RULES). */
  branchScope: BranchScopeRule;
  tag: 'Lab bills' | 'Hospital charges' | 'Channeling sessions' | 'Cash office';
  summary: string;
  /** Path parameter name, when the route has one. */
  param?: string;
  querystring?: JsonSchema;
  /** Query parameters of the NATS subject only: the gateway sets them itself, and drops them from an HTTP request. */
  natsOnlyQuery?: readonly string[];
  body?: JsonSchema;
  /** Whether the request body may be absent (documented as optional). */
  bodyOptional?: boolean;
  /**
   * The media type of a success that is not JSON (a PDF). The service sends
   * it base64-encoded in the envelope (BinaryReplyBody); the gateway answers
   * with the bytes. Failures stay JSON envelopes.
   */
  produces?: 'application/pdf';
  /** The query that asks for `produces` (`format=pdf`); without it the success is JSON, as `responses` has it. */
  producesWhen?: string;
  /**
   * A file the gateway writes from the pages the subject answers (exports.ts),
   * by the `format` asked: its media type per format. The NATS reply is a page.
   */
  exports?: Readonly<Record<string, string>>;
  /** Whether a retried request with the same Idempotency-Key answers the first result. */
  idempotent?: boolean;
  /**
   * Conditional requests on a single record: `read` answers with an ETag (and 304 to If-None-Match), `write`
   * takes If-Match (412 when stale). See service-kit's conditional.ts.
   */
  conditional?: 'read' | 'write';
  responses: Record<string, JsonSchema>;
}
