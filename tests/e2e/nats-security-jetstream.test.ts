/**
 * The system as an attacker holding one NATS password, or a client sending
 * oversized headers, would try it, against the real nats-server with the
 * generated users and permissions: private replies, verified callers, least
 * privilege on JetStream, the envelope for 414 and 431, two-level health, and
 * the token policy.
 */
import { AckPolicy, DeliverPolicy, headers as natsHeaders } from 'nats';
import {
  BillingSubjects,
  EventSubjects,
  HeaderNames,
  NATS_USERS,
  requestSubjectsOf,
  SERVICE_NAMES,
} from '@clinic/contracts';
import { counterOf, eventually, sleep } from './harness';
import { t, billId, natsCall, bearer, subscriptionRefused, billingLog, validBill } from './nats-security-stack';

describe('least privilege on JetStream', () => {
  const redirect = {
    durable_name: 'redirect',
    deliver_subject: BillingSubjects.list,
    deliver_group: 'billing',
    ack_policy: AckPolicy.None,
    deliver_policy: DeliverPolicy.All,
  };

  it('refuses the consumer redirection: hospital cannot create a consumer on BILLING_EVENTS delivering to billing.bill.list', async () => {
    const hospital = await t.nats('hospital');
    const jsm = await hospital.jetstreamManager({ checkAPI: false });
    await expect(jsm.consumers.add('BILLING_EVENTS', redirect)).rejects.toMatchObject({
      code: 'PERMISSIONS_VIOLATION',
    });
    // The older API subjects and an ephemeral consumer are no way around it.
    for (const subject of [
      '$JS.API.CONSUMER.DURABLE.CREATE.BILLING_EVENTS.redirect',
      '$JS.API.CONSUMER.CREATE.BILLING_EVENTS',
    ]) {
      const request = JSON.stringify({ stream_name: 'BILLING_EVENTS', config: redirect });
      await expect(hospital.request(subject, request, { timeout: 2000 })).rejects.toMatchObject({
        code: 'PERMISSIONS_VIOLATION',
      });
    }
    // hospital may not even ask about another consumer; the provisioner sees none was made.
    await expect(jsm.consumers.info('BILLING_EVENTS', 'redirect')).rejects.toThrow(/permissions violation/i);
    const provisioner = await (await t.nats('provisioner')).jetstreamManager({ checkAPI: false });
    await expect(provisioner.consumers.info('BILLING_EVENTS', 'redirect')).rejects.toThrow(/not found/i);
  });

  it('never runs a JetStream delivery as a request: a pull whose reply subject is billing.bill.list is ignored', async () => {
    const hospital = await t.nats('hospital');
    const handledLists = () =>
      billingLog().filter((l) => l.subject === BillingSubjects.list && l.msg === 'request handled').length;
    const before = handledLists();
    // The hospital's own pull consumer, with a service subject as the reply subject of the pull.
    hospital.publish(
      '$JS.API.CONSUMER.MSG.NEXT.BILLING_EVENTS.hospital',
      JSON.stringify({ batch: 1, expires: 2_000_000_000 }),
      {
        reply: BillingSubjects.list,
      },
    );
    const ignored = await eventually(async () => {
      const lines = billingLog().filter((l) => /JetStream delivery ignored/.test(l.msg));
      return lines.length > 0 ? lines : undefined;
    });
    expect(ignored[0]).toMatchObject({ subject: BillingSubjects.list, delivered_subject: EventSubjects.billCreated });
    expect(handledLists()).toBe(before);
  });

  it('lets hospital read events only by fetching from its provisioned pull consumer', async () => {
    // A bill of its own: the test before left the setup bill's event pending (delivered to billing.bill.list).
    expect((await t.post('/lab_bills', validBill())).status).toBe(201);
    const hospital = await t.nats('hospital');
    const consumer = await hospital.jetstream().consumers.get('BILLING_EVENTS', 'hospital');
    expect((await consumer.info()).config.deliver_subject).toBeUndefined();
    const batch = await consumer.fetch({ max_messages: 10, expires: 2000 });
    const subjects: string[] = [];
    for await (const m of batch) {
      subjects.push(m.subject);
      m.ack();
    }
    expect(subjects).toContain(EventSubjects.billCreated);
  });

  it("keeps each service to its own stream and consumers: no deleting or purging, no consumer on another's stream", async () => {
    const billing = await t.nats('billing');
    const refusedSubjects = [
      '$JS.API.STREAM.DELETE.CATALOGUE_EVENTS',
      '$JS.API.STREAM.DELETE.BILLING_EVENTS',
      '$JS.API.STREAM.PURGE.BILLING_EVENTS',
      '$JS.API.STREAM.PURGE.HOSPITAL_REF',
      '$JS.API.STREAM.DELETE.HOSPITAL_REF',
      '$JS.API.STREAM.UPDATE.HOSPITAL_REF',
      '$JS.API.CONSUMER.DELETE.HOSPITAL_REF.sessions-ref',
      '$JS.API.CONSUMER.CREATE.HOSPITAL_REF.sessions-ref',
      '$JS.API.CONSUMER.CREATE.CATALOGUE_EVENTS.redirect',
      '$JS.API.CONSUMER.DELETE.BILLING_EVENTS.hospital',
    ];
    for (const subject of refusedSubjects) {
      await expect(billing.request(subject, '{}', { timeout: 2000 }).then(() => subject)).rejects.toMatchObject({
        code: 'PERMISSIONS_VIOLATION',
      });
    }
    const streams = await (await t.nats('hospital')).jetstreamManager({ checkAPI: false });
    expect((await streams.streams.info('CATALOGUE_EVENTS')).config.name).toBe('CATALOGUE_EVENTS');
  });

  it('lets billing create no push consumer: its events cannot be delivered where it may not publish', async () => {
    const billing = await t.nats('billing');
    const jsm = await billing.jetstreamManager({ checkAPI: false });
    const refs = async () => (await jsm.streams.info('HOSPITAL_REF')).state.last_seq;
    const before = await refs();
    // Delivered to hospital.ref.store, the events would be stored on HOSPITAL_REF as reference records.
    const push = {
      ack_policy: AckPolicy.None,
      deliver_policy: DeliverPolicy.All,
      deliver_subject: 'hospital.ref.store',
    };
    await expect(jsm.consumers.add('BILLING_EVENTS', { ...push, durable_name: 'redirect' })).rejects.toMatchObject({
      code: 'PERMISSIONS_VIOLATION',
    });
    // The readers' consumer it provisions is a pull consumer, which nats-server does not turn into a push one.
    await expect(jsm.consumers.add('BILLING_EVENTS', { ...push, durable_name: 'hospital' })).rejects.toThrow();
    await sleep(300);
    expect(await refs()).toBe(before);
    const hospital = await (await t.nats('hospital')).jetstreamManager({ checkAPI: false });
    expect((await hospital.consumers.info('BILLING_EVENTS', 'hospital')).config.deliver_subject).toBeUndefined();
  });
});

describe('replies go to inboxes only', () => {
  const catalogueEvents = async () =>
    (await (await t.nats('hospital')).jetstreamManager({ checkAPI: false })).streams.info('CATALOGUE_EVENTS');

  it("answers no request whose reply subject is not a user's inbox: no answer is stored as another's event", async () => {
    const hospital = await t.nats('hospital');
    const before = (await catalogueEvents()).state;
    // nats-server lets billing publish its answer to any reply subject (allow_responses ignores the deny lists).
    const h = natsHeaders();
    h.set('authorization', `Bearer ${t.token('cashier', 31)}`);
    hospital.publish(BillingSubjects.list, JSON.stringify({ query: { store_id: '1' } }), {
      reply: 'catalogue.charge.created',
      headers: h,
    });
    // The same request with an inbox of its own is answered: the one before it has been handled by then.
    expect(
      await natsCall(hospital, BillingSubjects.list, { query: { store_id: '1' } }, bearer(t.token('cashier', 31))),
    ).toMatchObject({ status: 200 });
    await sleep(300);
    expect((await catalogueEvents()).state).toMatchObject({ messages: before.messages, last_seq: before.last_seq });
    const ignored = billingLog().filter((l) => /reply subject is no user's inbox/.test(l.msg));
    expect(ignored.at(-1)).toMatchObject({ subject: BillingSubjects.list, reply: 'catalogue.charge.created' });
  });
  it('counts a flood of messages it may not answer, logs it once, and answers the next request as usual', async () => {
    const hospital = await t.nats('hospital');
    const counted = () =>
      counterOf(t.stack.replica('billing'), 'clinic_nats_messages_dropped_total', `subject="${BillingSubjects.list}"`);
    const before = { count: await counted(), lines: billingLog().length };
    for (let i = 0; i < 500; i++) hospital.publish(BillingSubjects.list, JSON.stringify({ query: { store_id: '1' } }));
    for (let i = 0; i < 500; i++)
      hospital.publish(BillingSubjects.list, '{}', { reply: `${EventSubjects.billCreated}.${i}` });
    await eventually(async () => ((await counted()) >= before.count + 1000 ? true : undefined));
    expect(await counted()).toBe(before.count + 1000);
    // The request after the flood is answered; its log line comes after every line the flood made (one subscription,
    // handled in order), so the lines before it are all the flood wrote.
    const marker = { ...bearer(t.token('cashier', 31)), [HeaderNames.correlationId]: 'after-the-flood' };
    expect(await natsCall(hospital, BillingSubjects.list, { query: { store_id: '1' } }, marker)).toMatchObject({
      status: 200,
    });
    const lines = await eventually(async () => {
      const all = billingLog().slice(before.lines);
      const end = all.findIndex((l) => l.correlation_id === 'after-the-flood');
      return end < 0 ? undefined : all.slice(0, end);
    });
    const warned = lines.filter((l) => l.subject === BillingSubjects.list && l.level === 'warn');
    // Once a minute per subject and reason: the flood without reply subjects is one line; the test before this one
    // already had the foreign reply subject's line of this minute.
    expect(warned.filter((l) => l.reason === 'no_reply')).toEqual([
      expect.objectContaining({
        msg: 'message without a reply subject ignored: use request-reply',
        more_since_last: 0,
      }),
    ]);
    expect(warned.length).toBeLessThanOrEqual(2);
  });
});

describe('queue groups', () => {
  it('lets a service take its requests in its own queue group only, never all of them beside its replicas', async () => {
    const billing = await t.nats('billing');
    const refusedWithout = await subscriptionRefused(billing, BillingSubjects.list);
    const other = billing.subscribe(BillingSubjects.list, { queue: 'eavesdroppers' });
    await Promise.race([other.closed, sleep(3000)]);
    expect({ plain: refusedWithout, otherQueue: other.isClosed() }).toEqual({ plain: true, otherQueue: true });
    // The lists the gateway forwards keep being answered, by billing's own replicas.
    expect((await t.get('/lab_bills?store_id=1')).status).toBe(200);
  });
});

describe('discovery (NATS Services API)', () => {
  /** Every answer of a discovery request, as nats.js's service client gathers them. */
  async function gather<T>(answers: Promise<AsyncIterable<T>>): Promise<T[]> {
    const all: T[] = [];
    for await (const answer of await answers) all.push(answer);
    return all;
  }

  it("lets ops find each service's instance, its endpoints in the service's queue group, and their figures", async () => {
    const client = (await t.nats('ops')).services.client();
    const pings = await gather(client.ping());
    expect(pings.map((p) => p.name).sort()).toEqual([...SERVICE_NAMES].sort());
    expect(pings.find((p) => p.name === 'billing')?.metadata?.instance).toMatch(/-\d+$/);

    const info = (await gather(client.info('billing')))[0]!; // the stack runs one billing instance
    expect(info.endpoints.map((e) => e.subject).sort()).toEqual([...requestSubjectsOf('billing')].sort());
    expect(new Set(info.endpoints.map((e) => e.queue_group))).toEqual(new Set(['billing']));

    const read = await t.get(`/lab_bills/${billId}`);
    expect(read.status).toBe(200);
    const stats = (await gather(client.stats('billing', info.id)))[0]!;
    const get = stats.endpoints?.find((e) => e.subject === BillingSubjects.get);
    expect(get).toMatchObject({ name: 'bill-get', queue_group: 'billing' });
    expect(get!.num_requests).toBeGreaterThanOrEqual(1);
    expect(get!.data).toMatchObject({ answered: get!.num_requests, answered_5xx: 0 });
  });

  it('refuses discovery to every other user, and lets no service answer for another', async () => {
    for (const user of NATS_USERS.filter((u) => u !== 'ops')) {
      const nc = await t.nats(user);
      await expect(nc.request('$SRV.PING', '', { timeout: 2000 }).then(() => user)).rejects.toMatchObject({
        code: 'PERMISSIONS_VIOLATION',
      });
    }
    expect(await subscriptionRefused(await t.nats('billing'), '$SRV.PING.catalogue')).toBe(true);
  });
});
