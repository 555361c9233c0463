/** The platform (setup in platform-stack.ts): reference data as it arrives, restarts, and a service's outage. */
import { headers as natsHeaders } from 'nats';
import { BillingSubjects, refSubject, SessionsSubjects } from '@clinic/contracts';
import { branch, doctor } from './fixtures';
import { DEGRADED, eventually, failureOf } from './harness';
import { t, asHospital, asOps } from './platform-stack';

describe('reference data', () => {
  it('seeds records and waits until the services applied them', async () => {
    const result = await t.seed({
      stores: [branch(1, 'Main')],
      users: [{ id: 1, name: 'Admin' }],
    });
    expect(result.published).toBe(2);
    const h = natsHeaders();
    const msg = await asOps.request(BillingSubjects.refStatus, '{}', { timeout: 2000, headers: h });
    const status = JSON.parse(new TextDecoder().decode(msg.data));
    expect(status.body.applied_seq).toBeGreaterThanOrEqual(result.lastSeq);
  });

  it('makes a seeded record visible to the service that consumes it', async () => {
    await t.seed({
      stores: [branch(5, 'Galle')],
      doctors: [doctor(50, { name: 'Dr. Seeded', specialization: 'ENT', channeling_fee: 1500, store_id: 5 })],
    });
    const res = await t.post('/add_session', {
      doctor_id: 50,
      session_date: '2099-01-05',
      session_no: 1,
      start_time: '09:00',
      end_time: '10:00',
    });
    expect(res.status).toBe(201);
    const { session } = (await t.get(`/get_session/${res.body.session_id}`)).body;
    expect(session).toMatchObject({
      doctor_name: 'Dr. Seeded',
      store_name: 'Galle',
      store_id: 5,
      channeling_fee: 1500,
    });
  });

  it('lets a service stopped while records are published catch up after its restart', async () => {
    const sessions = t.stack.replica('sessions');
    await sessions.stop();
    const js = asHospital.jetstream();
    const whileDown = doctor(51, {
      name: 'Dr. While Down',
      specialization: 'ENT',
      channeling_fee: 900,
      store_id: 5,
      schedule: [{ day: 'Monday', session_no: 1, start_time: '08:00', end_time: '09:00', max_patients: null }],
    });
    await js.publish(refSubject('doctor'), JSON.stringify(whileDown));
    await js.publish(refSubject('store'), JSON.stringify(branch(5, 'Galle Fort')));
    const last = await js.publish(refSubject('doctor'), JSON.stringify({ ...whileDown, channeling_fee: 950 }));
    sessions.start();
    await t.stack.waitHealthy(30_000);
    const preview = await eventually(async () => {
      const r = await t.get('/preview_auto_sessions?doctor_id=51&month=2099-02');
      return r.body.preview?.length > 0 ? r.body : undefined;
    });
    expect(preview.preview[0]).toMatchObject({ doctor_name: 'Dr. While Down', channeling_fee: 950 });
    const status = JSON.parse(
      new TextDecoder().decode((await asOps.request(SessionsSubjects.refStatus, '{}', { timeout: 2000 })).data),
    );
    expect(status.body.applied_seq).toBeGreaterThanOrEqual(last.seq);
    const created = await t.post('/add_session', {
      doctor_id: 51,
      session_date: '2099-02-02',
      session_no: 1,
      start_time: '08:00',
      end_time: '09:00',
    });
    expect((await t.get(`/get_session/${created.body.session_id}`)).body.session.store_name).toBe('Galle Fort');
  });

  it('rejects an invalid seed file with the offending record', async () => {
    await expect(t.seed({ stores: [{ id: 'x', name: 'Bad' }] })).rejects.toThrow(/stores\[0\]/);
    await expect(t.seed({ rooms: [] })).rejects.toThrow(/Unknown key/);
  });
});

describe('restarts', () => {
  it('restarts every service on its existing data (indexes, streams and consumers already there)', async () => {
    await t.seed({ stores: [branch(9, 'Restart')] });
    const charge = await t.post('/hospital_charges', {
      store_id: 9,
      charge_name: 'X-ray',
      charge_type: 'General',
      amount: 10,
    });
    const bill = {
      patient_name: 'P',
      patient_contact: 'C',
      bill_date: '2090-01-01',
      payment_method: 'Card',
      store_id: 9,
      items: [{ charge_id: charge.body.charge_id, charge_name: 'X-ray', unit_price: 10, qty: 1 }],
    };
    expect((await t.post('/lab_bills', bill)).status).toBe(201);
    for (const name of ['catalogue', 'billing', 'sessions'] as const) {
      const replica = t.stack.replica(name);
      await replica.stop();
      replica.start();
    }
    await t.stack.waitHealthy(30_000);
    const again = await t.post('/lab_bills', bill);
    expect(again.status).toBe(201);
    expect(again.body.bill_number).toBe('LB-20900101-0002');
  });
});

describe('service outages', () => {
  it('answers 503 in the envelope when no instance of the service runs, and recovers', async () => {
    const sessions = t.stack.replica('sessions');
    await sessions.stop();
    const res = await t.get('/all_sessions');
    expect(res.status).toBe(503);
    expect(res.body).toEqual(failureOf('Service unavailable. Please retry.'));
    const health = await t.get('/health', { token: null });
    expect(health.status).toBe(503);
    expect(health.body).toEqual(DEGRADED);
    const details = await t.get('/health/details');
    expect(details.status).toBe(503);
    expect(details.body).toMatchObject({
      success: false,
      nats: 'ok',
      services: { sessions: { status: 'down' }, billing: { status: 'ok' } },
    });
    sessions.start();
    await t.stack.waitHealthy(30_000);
    expect((await t.get('/all_sessions')).status).toBe(200);
  });

  it('answers 504 in the envelope when the service does not answer in time', async () => {
    const sessions = t.stack.replica('sessions');
    try {
      await sessions.pause();
      const started = Date.now();
      // A read no one made before: the gateway's reply cache answers a repeated one without the service.
      const res = await t.get('/all_sessions?date=2097-01-01');
      expect(res.status).toBe(504);
      expect(res.body).toEqual(failureOf('The service did not answer in time. Please retry.'));
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      sessions.signal('SIGCONT');
    }
    await t.stack.waitHealthy(30_000);
  });
});
