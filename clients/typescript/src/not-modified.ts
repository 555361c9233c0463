/**
 * A conditional read answered 304 Not Modified: the representation the caller
 * holds (its ETag sent as If-None-Match) is still current. openapi-fetch takes
 * any status outside 2xx for an error, and a 304 has no body, so it answered
 * `{ error: "" }`: falsy, and `data` undefined. The client answers it as what
 * it is instead: neither data nor an error, `notModified: true`.
 */
import type { FetchResponse, MaybeOptionalInit } from 'openapi-fetch';
import type { MediaType, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';

export interface NotModified {
  data?: never;
  error?: never;
  notModified: true;
  response: Response;
}

/** openapi-fetch's answer, marked as not a 304. */
export type Answered<T> = T & { notModified?: false };

// As openapi-fetch's own: the request's options are optional when nothing in them is required.
type InitParam<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/** openapi-fetch's GET, with a 304 answered as NotModified. */
// biome-ignore lint/suspicious/noExplicitAny: openapi-fetch's own bound on a document's paths
export type ConditionalGet<Paths extends Record<string, any>> = <
  Path extends PathsWithMethod<Paths, 'get'>,
  Init extends MaybeOptionalInit<Paths[Path], 'get'>,
>(
  url: Path,
  ...init: InitParam<Init>
) => Promise<Answered<FetchResponse<Paths[Path]['get'], Init, MediaType>> | NotModified>;

/** Wraps a GET so that its 304 is NotModified; every other answer is openapi-fetch's. */
export function answeringNotModified<Args extends unknown[], Answer extends { response: Response }>(
  get: (...args: Args) => Promise<Answer>,
): (...args: Args) => Promise<Answer | NotModified> {
  return async (...args) => {
    const answer = await get(...args);
    return answer.response.status === 304 ? { notModified: true, response: answer.response } : answer;
  };
}
