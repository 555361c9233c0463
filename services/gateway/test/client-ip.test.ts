import { parseTrustedProxies } from '../src/client-ip';

it('reads TRUSTED_PROXIES as addresses and CIDR ranges; unset or empty, no proxy is trusted', () => {
  expect(parseTrustedProxies(undefined)).toEqual([]);
  expect(parseTrustedProxies('')).toEqual([]);
  expect(parseTrustedProxies(' 172.30.255.0/27, 10.1.2.3 ,fd00::/8,::1')).toEqual([
    '172.30.255.0/27',
    '10.1.2.3',
    'fd00::/8',
    '::1',
  ]);
});

it.each(['loopback', '10.0.0.0/33', 'fd00::/129', '10.0.0.0/8/8', '10.0.0.0/x', 'proxy.example.org', '*'])(
  'stops the gateway at start on %p rather than trust what it cannot read',
  (value) => {
    expect(() => parseTrustedProxies(value)).toThrow(
      `TRUSTED_PROXIES: "${value}" is not an IP address or a CIDR range`,
    );
  },
);
