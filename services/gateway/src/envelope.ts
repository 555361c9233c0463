import type { HttpRoute, ServiceRequest } from '@clinic/contracts';

/**
 * The NATS request envelope `{ params?, query?, body? }` of an HTTP request to
 * `route`, with the body's own bytes in it (re-encoded, a body can grow:
 * 1e20 is written 100000000000000000000).
 */
export function requestEnvelope(
  route: HttpRoute,
  params: Record<string, string>,
  query: Record<string, string | string[]>,
  rawBody: Buffer | undefined,
): Uint8Array {
  const message: ServiceRequest = {};
  if (route.param) message.params = { [route.param]: String(params[route.param]) };
  if (route.querystring) message.query = query;
  const head = JSON.stringify(message);
  if (!route.body || !rawBody) return Buffer.from(head);
  const prefix = head === '{}' ? '{"body":' : `${head.slice(0, -1)},"body":`;
  return Buffer.concat([Buffer.from(prefix), rawBody, Buffer.from('}')]);
}
