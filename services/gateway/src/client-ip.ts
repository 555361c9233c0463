/**
 * Who the client is, behind a load balancer: X-Forwarded-For is believed from the proxies TRUSTED_PROXIES names
 * (addresses and CIDR ranges) and from no other peer, so a client cannot pass itself off as another address in the
 * logs or in the per-address rate limit. Fastify's `trustProxy` (proxy-addr) then takes, as `request.ip`, the
 * nearest address of the header that is not a trusted proxy.
 */
import { isIP } from 'node:net';
import { textVar, type EnvProperties } from '@clinic/service-kit';

export const PROXY_ENV = {
  TRUSTED_PROXIES: textVar(
    "Comma-separated addresses and CIDR ranges (`10.0.0.0/8`) of the proxies in front of the gateway, whose `X-Forwarded-For` gives the client's address (logs, the per-address rate limit); unset: none, every peer is the client (compose: the load balancer's network, `EDGE_SUBNET`).",
  ),
} as const satisfies EnvProperties;

/** TRUSTED_PROXIES as a list for Fastify's `trustProxy`; anything but an address or a CIDR range stops the gateway. */
export function parseTrustedProxies(value: string | undefined): string[] {
  const entries = (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address = '', bits, ...more] = entry.split('/');
    const family = isIP(address);
    const prefixOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
    if (!family || !prefixOk || more.length > 0)
      throw new Error(`TRUSTED_PROXIES: "${entry}" is not an IP address or a CIDR range`);
  }
  return entries;
}
