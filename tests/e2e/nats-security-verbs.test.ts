/**
 * Least privilege on JetStream's API, asked of the real nats-server: each NATS
 * user tries every `$JS.API` verb on every stream (and on the durable
 * consumers that exist), and every one it does not need is refused. What each
 * user needs is written here, apart from the generated permissions, so that a
 * right granted by mistake fails the test.
 */
import type { NatsConnection } from 'nats';
import { NATS_USERS, refConsumerName, SERVICE_NAMES, type NatsUser } from '@clinic/contracts';
import { t } from './nats-security-stack';

const REF = 'HOSPITAL_REF';
const DEAD = 'HOSPITAL_REF_DEAD';
const EVENTS = SERVICE_NAMES.map((s) => `${s.toUpperCase()}_EVENTS`);
const CACHES = SERVICE_NAMES.map((s) => `${s.toUpperCase()}_CACHE`);
const STREAMS = [REF, DEAD, ...EVENTS, ...CACHES];
const DURABLES: Record<string, string[]> = {
  [REF]: ['billing-ref', 'sessions-ref'],
  ...Object.fromEntries([...EVENTS, DEAD].map((stream) => [stream, ['hospital']])),
};

const STREAM_VERBS = [
  'STREAM.INFO',
  'STREAM.CREATE',
  'STREAM.UPDATE',
  'STREAM.DELETE',
  'STREAM.PURGE',
  'STREAM.SNAPSHOT',
  'STREAM.RESTORE',
  'STREAM.MSG.GET',
  'STREAM.MSG.DELETE',
  'DIRECT.GET',
  'STREAM.LEADER.STEPDOWN',
  'STREAM.PEER.REMOVE',
  'CONSUMER.CREATE',
  'CONSUMER.NAMES',
  'CONSUMER.LIST',
] as const;
const CONSUMER_VERBS = [
  'CONSUMER.INFO',
  'CONSUMER.CREATE',
  'CONSUMER.DURABLE.CREATE',
  'CONSUMER.DELETE',
  'CONSUMER.PAUSE',
  'CONSUMER.UNPIN',
  'CONSUMER.LEADER.STEPDOWN',
  'CONSUMER.MSG.NEXT',
] as const;
const ACCOUNT_VERBS = ['INFO', 'STREAM.NAMES', 'STREAM.LIST', 'META.LEADER.STEPDOWN', 'SERVER.REMOVE'] as const;

/** What each user needs, as `<verb> <stream>[.<consumer>]` (`*` for any consumer name). */
const NEEDS: Record<NatsUser, string[]> = {
  gateway: CACHES.map((c) => `DIRECT.GET ${c}`),
  billing: serviceNeeds('billing'),
  catalogue: serviceNeeds('catalogue'),
  sessions: serviceNeeds('sessions'),
  // Its own consumer on each stream it reads, and no other (deploy/outside-systems.json).
  hospital: [...EVENTS, DEAD].flatMap((s) => [
    `STREAM.INFO ${s}`,
    `CONSUMER.INFO ${s}.hospital`,
    `CONSUMER.MSG.NEXT ${s}.hospital`,
  ]),
  ops: ['INFO', `STREAM.INFO ${REF}`, ...[REF, ...EVENTS].map((s) => `STREAM.SNAPSHOT ${s}`)],
  provisioner: [
    'INFO',
    ...STREAMS.flatMap((s) => [
      `STREAM.INFO ${s}`,
      `STREAM.CREATE ${s}`,
      `STREAM.UPDATE ${s}`,
      `STREAM.LEADER.STEPDOWN ${s}`,
    ]),
    ...['billing', 'sessions'].flatMap((s) => [`CONSUMER.INFO ${REF}.${s}-ref`, `CONSUMER.CREATE ${REF}.${s}-ref`]),
    ...[...EVENTS, DEAD].flatMap((s) => [`CONSUMER.INFO ${s}.*`, `CONSUMER.CREATE ${s}.*`]),
  ],
};

function serviceNeeds(service: (typeof SERVICE_NAMES)[number]): string[] {
  const follows = service !== 'catalogue';
  return [
    'INFO',
    `STREAM.INFO ${REF}`,
    ...(follows
      ? [`CONSUMER.INFO ${REF}.${refConsumerName(service)}`, `CONSUMER.MSG.NEXT ${REF}.${refConsumerName(service)}`]
      : []),
    `DIRECT.GET ${service.toUpperCase()}_CACHE`,
  ];
}

const needs = (user: NatsUser, verb: string, stream?: string, consumer?: string) =>
  NEEDS[user].some((need) => {
    const [v, target = ''] = need.split(' ');
    if (v !== verb) return false;
    if (!stream) return target === '';
    const [s, c] = target.split('.');
    return s === stream && (consumer === undefined ? c === undefined : c === '*' || c === consumer);
  });

/** Whether the server refused the request for want of permission (any answer, or none in time, is not a refusal). */
async function refused(nc: NatsConnection, subject: string, payload: string): Promise<boolean> {
  try {
    await nc.request(subject, payload, { timeout: 250 });
    return false;
  } catch (err) {
    return (err as { code?: string }).code === 'PERMISSIONS_VIOLATION';
  }
}

/** Every verb a user can try, with what the user needs of it. */
function attempts(user: NatsUser): Array<{ subject: string; payload: string; needed: boolean }> {
  // Harmless bodies: a pull that waits for nothing, an update that names no stream.
  const payloadOf = (verb: string) => (verb === 'CONSUMER.MSG.NEXT' ? '{"batch":1,"no_wait":true}' : '{}');
  const list = ACCOUNT_VERBS.map((verb) => ({
    subject: `$JS.API.${verb}`,
    payload: '{}',
    needed: needs(user, verb),
  }));
  for (const stream of STREAMS) {
    for (const verb of STREAM_VERBS)
      list.push({ subject: `$JS.API.${verb}.${stream}`, payload: payloadOf(verb), needed: needs(user, verb, stream) });
    for (const consumer of [...(DURABLES[stream] ?? []), 'intruder'])
      for (const verb of CONSUMER_VERBS)
        list.push({
          subject: `$JS.API.${verb}.${stream}.${consumer}`,
          payload: payloadOf(verb),
          needed: needs(user, verb, stream, consumer),
        });
  }
  return list;
}

it.each([...NATS_USERS])('refuses %s every JetStream verb it does not need, on every stream', async (user) => {
  const nc = await t.nats(user);
  const wrong: string[] = [];
  const tried = attempts(user);
  // A few at a time: each refusal is an error the server sends back, and the connection stays open.
  for (let i = 0; i < tried.length; i += 16) {
    await Promise.all(
      tried.slice(i, i + 16).map(async ({ subject, payload, needed }) => {
        const isRefused = await refused(nc, subject, payload);
        if (isRefused === needed) wrong.push(`${needed ? 'refused although needed' : 'allowed'}: ${subject}`);
      }),
    );
  }
  expect(wrong.sort()).toEqual([]);
  expect(tried.length).toBeGreaterThan(200);
});
