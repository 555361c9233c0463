/**
 * How the branch-scope tests send one call of a route: through the gateway,
 * or straight to the service over NATS as another hospital system does.
 */
import { headers as natsHeaders, type NatsConnection } from 'nats';
import type { HttpRoute } from '@clinic/contracts';
import type { TestStack } from './harness';

export interface Call {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

export interface Answer {
  status: number;
  body: any;
}

/** Through the gateway, or straight to the service over NATS as another hospital system. */
export const TRANSPORTS = ['HTTP', 'NATS'] as const;
export type Transport = (typeof TRANSPORTS)[number];

/** An answer's outcome: a success that is not JSON (a receipt) counts as one. */
export const outcome = (answer: Answer) => ({ status: answer.status, success: answer.body?.success ?? true });

/** The call through the gateway; a success that is not JSON (a receipt) has a null body. */
export async function viaHttp(t: TestStack, route: HttpRoute, call: Call, token: string): Promise<Answer> {
  let path = route.url;
  for (const [name, value] of Object.entries(call.params ?? {})) path = path.replace(`:${name}`, value);
  if (call.query) path += `?${new URLSearchParams(call.query)}`;
  const res = await t.request(route.method, path, call.body, { token });
  return { status: res.status, body: typeof res.body === 'object' ? res.body : null };
}

/** The same call straight to the service over NATS, as another hospital system makes it. */
export async function viaNats(nc: NatsConnection, route: HttpRoute, call: Call, token: string): Promise<Answer> {
  const h = natsHeaders();
  h.set('authorization', `Bearer ${token}`);
  const reply = await nc.request(route.subject, JSON.stringify(call), { headers: h, timeout: 10_000 });
  return reply.json<Answer>();
}
