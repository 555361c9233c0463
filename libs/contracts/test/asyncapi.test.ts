/**
 * The AsyncAPI document generated from the contracts: valid for the AsyncAPI
 * parser without a single error or warning, and naming every subject the
 * services answer and every event they publish.
 */
import { Parser } from '@asyncapi/parser';
import {
  asyncApiDocument,
  EventSubjects,
  eventStreamOf,
  gatewayCacheSubjects,
  NATS_PERMISSIONS,
  REF_KINDS,
  refSubject,
  requestSubjectsOf,
  SERVICE_NAMES,
  toJsonSchema,
} from '../src';

const document = asyncApiDocument() as any;
const addresses = (action: string) =>
  Object.values(document.operations as Record<string, any>)
    .filter((op) => op.action === action)
    .map((op) => document.channels[op.channel.$ref.split('/').pop()].address);

it('parses with @asyncapi/parser: 0 errors, 0 warnings', async () => {
  const { document: parsed, diagnostics } = await new Parser().parse(JSON.stringify(document));
  expect(diagnostics.map((d) => `${d.severity} ${d.code} ${d.message} at ${d.path.join('.')}`)).toEqual([]);
  expect(parsed).toBeDefined();
  expect(parsed!.version()).toBe('3.1.0');
  // The parser does find faults: a broken copy fails.
  const broken = structuredClone(document);
  broken.operations['billing.bill.create'].channel = { $ref: '#/channels/nowhere' };
  expect((await new Parser().parse(JSON.stringify(broken))).diagnostics.some((d) => d.severity === 0)).toBe(true);
}, 60_000);

it('names every subject each service answers, as a request/reply operation of its queue group', () => {
  for (const service of SERVICE_NAMES) {
    for (const subject of requestSubjectsOf(service)) {
      const op = document.operations[subject];
      expect({ subject, action: op?.action }).toEqual({ subject, action: 'receive' });
      expect(document.channels[subject].address).toBe(subject);
      expect(op.bindings.nats).toEqual({ queue: service, bindingVersion: '0.1.0' });
      expect(op.reply.messages).toHaveLength(1);
      expect(document.components.messages[`${subject}.request`].payload.type).toBe('object');
      expect(document.components.messages[`${subject}.reply`].payload.required).toEqual(['status', 'body']);
    }
  }
  // And the gateway may call nothing the document does not describe (its reply cache follows the cache streams).
  const following = gatewayCacheSubjects();
  for (const subject of NATS_PERMISSIONS.gateway.publish.filter((s) => !following.has(s)))
    expect(addresses('receive')).toContain(subject);
});

it('names every event each service publishes, with the envelope and its data schema', () => {
  const published = SERVICE_NAMES.flatMap((s) => eventStreamOf(s).subjects);
  expect(published.sort()).toEqual(Object.values(EventSubjects).sort());
  expect(addresses('send').sort()).toEqual(published.sort());
  for (const subject of published) {
    const payload = document.components.messages[subject].payload;
    expect(payload.required).toEqual(['event_id', 'type', 'occurred_at', 'correlation_id', 'data']);
    expect(payload.properties.type.enum).toEqual([subject]);
    // The resource after the change; a bill's money events: the entry, and the bill's money.
    const money: string[] = [
      EventSubjects.billPaymentRecorded,
      EventSubjects.billRefunded,
      EventSubjects.appointmentPaymentRecorded,
      EventSubjects.appointmentRefunded,
    ];
    expect(payload.properties.data.required).toHaveLength(money.includes(subject) ? 2 : 1);
  }
});

it('names the reference subjects other hospital systems publish', () => {
  for (const kind of REF_KINDS) expect(addresses('receive')).toContain(refSubject(kind));
});

it('rewrites the OpenAPI dialect into JSON Schema', () => {
  expect(toJsonSchema({ type: 'string', nullable: true, example: 'x', enum: ['a', null] })).toEqual({
    type: ['string', 'null'],
    examples: ['x'],
    enum: ['a', null],
  });
  expect(
    toJsonSchema({ type: 'object', properties: { n: { type: 'integer', nullable: true } }, required: ['n'] }),
  ).toEqual({
    type: 'object',
    properties: { n: { type: ['integer', 'null'] } },
    required: ['n'],
  });
});
