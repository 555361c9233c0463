// A real OpenID Provider for the identity-provider tests (node-oidc-provider, run as a process of its own: it is an
// ECMAScript module). It issues JWT access tokens by the client credentials grant, for the resource (the audience)
// the client names, with Keycloak-like claims per client, and serves its keys at /jwks.
//   OIDC_PROVIDER='{"port":..., "issuer":"http://127.0.0.1:<port>", "keys":[<private JWK>...], "alg":"RS256",
//                   "resources":["urn:clinic:api", ...], "clients":{"<id>":{"secret":"...","claims":{...}}}}'
// Prints `listening` once it serves, and `jwks` on each fetch of its keys (the test counts them).
import Provider from 'oidc-provider';

const config = JSON.parse(process.env.OIDC_PROVIDER);

const provider = new Provider(config.issuer, {
  clients: Object.entries(config.clients).map(([clientId, client]) => ({
    client_id: clientId,
    client_secret: client.secret,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
  })),
  jwks: { keys: config.keys },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      getResourceServerInfo: async (_ctx, resource) => {
        if (!config.resources.includes(resource)) throw new Provider.errors.InvalidTarget();
        return {
          scope: 'api',
          audience: resource,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 600,
          jwt: { sign: { alg: config.alg } },
        };
      },
    },
  },
  extraTokenClaims: async (_ctx, token) => config.clients[token.clientId]?.claims,
});

provider.use(async (ctx, next) => {
  if (ctx.path === '/jwks') process.stdout.write('jwks\n');
  await next();
});

provider.listen(config.port, '127.0.0.1', () => process.stdout.write('listening\n'));
