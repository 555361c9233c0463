/** What `npm start` reads itself (beside what it hands each process); docs/configuration.md lists it. */
import { integerVar, textVar, TOKEN_LIFETIME_ENV, type EnvProperties } from '@clinic/service-kit/internal';

export const START_ENV = {
  NATS_CLUSTER: integerVar(
    1,
    '`3`: a three-node NATS cluster on `NATS_PORT`..+2 (routes on +2000, monitoring on +4000); tests take it too.',
  ),
  NATS_TLS: integerVar(
    0,
    "`1`: NATS with TLS only, certificates in `DATA_DIR/tls` signed by the installation's CA (`CA_DIR`).",
  ),
  CA_DIR: textVar(
    "The installation's CA (`ca.crt`, `ca.key`), which signs the certificates of npm start and of `npm run certs`; unset: `DATA_DIR/tls` (made there by whichever needs it first).",
  ),
  TLS_CERT_FILE: textVar('Handed to the gateway: HTTPS with `TLS_KEY_FILE`.'),
  TLS_KEY_FILE: textVar('Handed to the gateway: HTTPS with `TLS_CERT_FILE`.'),
  TLS_CA_FILE: textVar("The CA that signed the gateway's certificate, which npm start's own checks trust."),
  NATS_URL: textVar('Set: an external NATS; npm start starts none of its own.'),
  MONGO_URL: textVar('Set: an external database; npm start starts none of its own.'),
  NATS_PORT: integerVar(4222, "The local nats-server's client port."),
  DB_PORT: integerVar(
    27017,
    "The embedded database's TCP port (the services use its socket, `DATA_DIR/ferretdb.sock`, when its path fits one).",
  ),
  PORT: integerVar(3000, "The gateway's port."),
  CLINIC_TZ: {
    type: 'string',
    default: 'Asia/Colombo',
    description: 'Handed to every service: the clinic\'s time zone, its "today" and the times its papers print.',
  },
  ...TOKEN_LIFETIME_ENV,
} as const satisfies EnvProperties;
