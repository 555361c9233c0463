/**
 * Reference records that cannot vanish: a record of no known kind,
 * one that is not JSON and one failing its kind's schema are each stored in
 * HOSPITAL_REF_DEAD with the reason, once, counted in the services' metrics,
 * and readable by the system that sent them; the stream's later records still apply.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsMsg } from 'nats';
import { BillingSubjects, DeadLetterHeaders, SessionsSubjects } from '@clinic/contracts';
import { branch } from './fixtures';
import { counterOf, eventually, fileStack } from './harness';

const t = fileStack({ stores: [branch(1, 'Main')] });

it('keeps what it cannot apply as a dead letter with its reason, once, for its sender to read', async () => {
  const hospital = await t.nats('hospital');
  const js = hospital.jetstream();
  await js.publish('hospital.ref.nonsense', JSON.stringify({ id: 1 }));
  await js.publish('hospital.ref.store', 'not json at all');
  await js.publish('hospital.ref.user', JSON.stringify({ id: 'abc' }));
  // A field name no header may carry (a line break) is reported without one, and holds nothing up either.
  await js.publish('hospital.ref.store', JSON.stringify({ ...branch(9, 'Fees'), channeling_fees: { 'a\r\nb': 1 } }));
  // A good record after them is applied: the bad ones hold nothing up.
  const { lastSeq: last } = await t.seed({ stores: [branch(2, 'After the bad ones')] });

  const consumer = await js.consumers.get('HOSPITAL_REF_DEAD', 'hospital');
  const letters: JsMsg[] = [];
  await eventually(async () => {
    for await (const m of await consumer.fetch({ max_messages: 10, expires: 1_000 })) {
      letters.push(m);
      m.ack();
    }
    return letters.length >= 4 ? true : undefined;
  }, 20_000);
  const seen = letters
    .map((m) => [m.subject, m.headers?.get(DeadLetterHeaders.subject), m.headers?.get(DeadLetterHeaders.reason)])
    .sort();
  expect(seen).toEqual([
    ['hospital.dead.store', 'hospital.ref.store', expect.stringMatching(/^invalid: [^\r\n]*a\?\?b/)],
    ['hospital.dead.store', 'hospital.ref.store', 'not_json: the message is not JSON'],
    ['hospital.dead.unknown', 'hospital.ref.nonsense', 'unknown_kind: hospital.ref.nonsense'],
    ['hospital.dead.user', 'hospital.ref.user', expect.stringMatching(/^invalid: /)],
  ]);
  // Billing and sessions both meet the unknown kind and the bad store: each is stored once.
  const info = await (await hospital.jetstreamManager({ checkAPI: false })).streams.info('HOSPITAL_REF_DEAD');
  expect(info.state.messages).toBe(4);
  // A flood of bad records cannot fill the disk the other streams need.
  expect(info.config.max_bytes).toBe(256 * 1024 * 1024);
  expect(
    await counterOf(t.stack.replica('billing'), 'clinic_reference_dead_letters_total', 'reason="unknown_kind"'),
  ).toBe(1);
  expect(
    await counterOf(
      t.stack.replica('sessions'),
      'clinic_reference_dead_letters_total',
      'kind="store"',
      'reason="not_json"',
    ),
  ).toBe(1);
  expect((await t.get('/lab_bills?store_id=2')).status).toBe(200);
  // The sender asks each service how far it applied the stream: past every record it sent, the bad ones included.
  for (const subject of [BillingSubjects.refStatus, SessionsSubjects.refStatus]) {
    const reply = JSON.parse(new TextDecoder().decode((await hospital.request(subject, '{}', { timeout: 2000 })).data));
    expect(reply.body.applied_seq).toBe(last);
  }
});

it('counts each of a flood of bad records and logs it once a minute at most, as a dead letter each', async () => {
  const hospital = await t.nats('hospital');
  const js = hospital.jetstream();
  const counted = () =>
    counterOf(t.stack.replica('sessions'), 'clinic_reference_dead_letters_total', 'kind="store"', 'reason="not_json"');
  const sessionsLog = () =>
    readFileSync(join(t.stack.logDir, 'sessions-1.log'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  const before = { count: await counted(), lines: sessionsLog().length };
  for (let i = 0; i < 100; i++) await js.publish('hospital.ref.store', `not json ${i}`);
  // A record of another kind and reason after them: its line comes after every line the flood made.
  await js.publish('hospital.ref.doctor', 'the marker');
  const lines = await eventually(async () => {
    const all = sessionsLog().slice(before.lines);
    const end = all.findIndex((l) => l.kind === 'doctor' && l.reason === 'not_json');
    return end < 0 ? undefined : all.slice(0, end);
  }, 20_000);
  expect(await counted()).toBe(before.count + 100);
  // The test before logged this kind and reason this minute: the flood adds at most one line (a new minute's).
  expect(lines.filter((l) => l.kind === 'store' && l.reason === 'not_json').length).toBeLessThanOrEqual(1);
});
