/** What the gateway and the service kit answer themselves, beside the services' own messages (fields/*). */
import { BAD_IDEMPOTENCY_KEY_MESSAGE } from './limits';

/** The gateway's own failures. */
export const GATEWAY_MESSAGES = {
  notFound: 'Route not found.',
  methodNotAllowed: 'Method not allowed for this route.',
  invalidJson: 'Request body must be valid JSON.',
  poisoned: 'Request body must not contain __proto__ or constructor.prototype keys.',
  tooLarge: 'Request body is too large.',
  unavailable: 'Service unavailable. Please retry.',
  timeout: 'The service did not answer in time. Please retry.',
  badIdempotencyKey: BAD_IDEMPOTENCY_KEY_MESSAGE,
  pathTooLong: 'Request path is too long.',
  badPath: 'Request path is malformed.',
  headersTooLarge: 'Request headers are too large.',
  badRequest: 'Malformed HTTP request.',
  hostRequired: 'A Host header is required (HTTP/1.1).',
  requestTimeout: 'Request timed out.',
  /** GET /health while a part of the system does not answer. */
  unhealthy: 'Some parts of the system are unavailable.',
  /** 429: `after` is how long until the window ends ("1 minute", "30 seconds"). */
  rateLimited: (after: string) => `Too many requests. Retry in ${after}.`,
} as const;

/** What a service answers about a request it cannot read, whatever its subject. */
export const REQUEST_MESSAGES = {
  invalidJson: 'Request is not valid JSON.',
  poisoned: 'Request must not contain __proto__ or constructor.prototype keys.',
  badEnvelope: 'Request does not follow the service envelope {params, query, body}.',
  /** `<service>.health` while the service's database does not answer. */
  databaseUnavailable: (service: string) => `${service}: database unavailable.`,
  /** A write prepared too late to finish within its window (service-kit's prepared events). */
  writeTooLate: 'The service is too busy to record this now. Please retry.',
  /** A change of a record that other requests kept changing for 3 s (RecordWriter). */
  recordBusy: 'The record is being changed by another request. Please retry.',
} as const;

export const GENERIC_ERROR_MESSAGE = 'Internal server error.';

/** 412: If-Match named a representation the record no longer has. */
export const PRECONDITION_FAILED_MESSAGE =
  'The record has changed since it was read (If-Match). Read it again, then retry.';

/** The longest If-Match header a service reads (a few ETags); a longer one is refused (400). */
export const IF_MATCH_MAX_LENGTH = 1000;
export const IF_MATCH_TOO_LONG_MESSAGE = `If-Match must be at most ${IF_MATCH_MAX_LENGTH} characters.`;
