/**
 * The peer's HTTP side: moleculer-web, each request's HS256 token verified with
 * fast-jwt, the action called over the NATS transporter.
 * Usage: JWT_SECRET=... node moleculer-api.js <nats url> <port>
 */
import { createVerifier } from 'fast-jwt';
import { ServiceBroker } from 'moleculer';
import ApiGateway from 'moleculer-web';

async function main(): Promise<void> {
  const [natsUrl, port] = process.argv.slice(2);
  const verify = createVerifier({ key: process.env.JWT_SECRET!, algorithms: ['HS256'], cache: true });
  const broker = new ServiceBroker({
    nodeID: 'api',
    transporter: { type: 'NATS', options: { url: natsUrl } },
    logger: false,
  });
  broker.createService({
    name: 'api',
    mixins: [ApiGateway],
    settings: {
      port: Number(port),
      ip: '127.0.0.1',
      routes: [
        {
          path: '/',
          authorization: true,
          mappingPolicy: 'restrict',
          aliases: { 'GET hospital_charges': 'charges.list' },
        },
      ],
    },
    methods: {
      authorize(_ctx: unknown, _route: unknown, req: { headers: Record<string, string | undefined> }) {
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        if (!token) throw new ApiGateway.Errors.UnAuthorizedError(ApiGateway.Errors.ERR_NO_TOKEN, null);
        verify(token);
      },
    },
  });
  await broker.start();
  process.stdout.write('ready\n');
  process.once('SIGTERM', () => void broker.stop());
}

void main();
