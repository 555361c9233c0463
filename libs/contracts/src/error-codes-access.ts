/** The codes of who asks: tokens, roles, branches, rate limits (a part of ERROR_CODES). */
import { AUTH_MESSAGES, BRANCH_MESSAGES, TOKEN_MESSAGES } from './access';
import { code, type ErrorCodeEntry } from './error-code-entry';
import { GATEWAY_MESSAGES } from './http-messages';

export const ACCESS_CODES = {
  AUTHENTICATION_REQUIRED: code(401, 'No bearer token: sign in.', AUTH_MESSAGES.unauthenticated),
  TOKEN_EXPIRED: code(401, 'The token has expired: get a new one.', TOKEN_MESSAGES.expired),
  TOKEN_INVALID: code(
    401,
    'The token is refused: malformed, badly signed, issued in the future, living too long, or without the claims it needs.',
    TOKEN_MESSAGES.invalid,
    TOKEN_MESSAGES.claims,
    TOKEN_MESSAGES.issuedInFuture,
    TOKEN_MESSAGES.iatNotNumber,
    TOKEN_MESSAGES.storeIds,
    TOKEN_MESSAGES.tooLongLived,
  ),
  FORBIDDEN: code(403, "The token's role may not do this.", AUTH_MESSAGES.forbidden),
  BRANCH_NOT_ALLOWED: code(
    403,
    "The request names a branch outside the token's store_ids.",
    BRANCH_MESSAGES.notAllowed,
  ),
  BRANCH_REQUIRED: code(
    403,
    'BRANCH_SCOPE=required and the token names no branch (store_ids).',
    BRANCH_MESSAGES.noBranch,
  ),
  RATE_LIMITED: code(
    429,
    'Too many requests in the window: retry after Retry-After seconds.',
    GATEWAY_MESSAGES.rateLimited,
  ),
} as const satisfies Record<string, ErrorCodeEntry>;
