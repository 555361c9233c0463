/** What `npm start` reads itself (beside what it hands each process); docs/configuration.md lists it. */
import { TOKEN_LIFETIME_ENV, type EnvProperties } from '@clinic/service-kit/internal';

export const START_ENV = {
  NATS_CLUSTER: {
    type: 'integer',
    default: 1,
    description:
      '`3`: a three-node NATS cluster on `NATS_PORT`..+2 (routes on +2000, monitoring on +4000); tests take it too.',
  },
  NATS_TLS: {
    type: 'integer',
    default: 0,
    description: '`1`: NATS with TLS only, a local CA and certificates in `DATA_DIR/tls`.',
  },
  TLS_CERT_FILE: { type: 'string', description: 'Handed to the gateway: HTTPS with `TLS_KEY_FILE`.' },
  TLS_KEY_FILE: { type: 'string', description: 'Handed to the gateway: HTTPS with `TLS_CERT_FILE`.' },
  TLS_CA_FILE: {
    type: 'string',
    description: "The CA that signed the gateway's certificate, which npm start's own checks trust.",
  },
  NATS_URL: { type: 'string', description: 'Set: an external NATS; npm start starts none of its own.' },
  MONGO_URL: { type: 'string', description: 'Set: an external database; npm start starts none of its own.' },
  NATS_PORT: { type: 'integer', default: 4222, description: "The local nats-server's client port." },
  DB_PORT: { type: 'integer', default: 27017, description: "The embedded database's port." },
  PORT: { type: 'integer', default: 3000, description: "The gateway's port." },
  ...TOKEN_LIFETIME_ENV,
} as const satisfies EnvProperties;
