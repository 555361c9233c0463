/** Charges over NATS (setup in catalogue-stack.ts): billing's charge check, and the events a charge's life publishes. */
import { headers as natsHeaders } from 'nats';
import { CatalogueSubjects, EventSubjects, HeaderNames } from '@clinic/contracts';
import { EventReader } from './events';
import { answerOf } from './harness';
import { t, nc, freshStore, valid, create } from './catalogue-stack';

describe('charge check for billing (NATS)', () => {
  it('returns the ids that are not Active, deleted, missing or of another store, and the others’ amounts', async () => {
    const store = freshStore();
    const active = (await create(valid(store, { charge_name: 'Active one' }))).body.charge_id;
    const inactive = (await create(valid(store, { charge_name: 'Inactive one', status: 'Inactive' }))).body.charge_id;
    const deleted = (await create(valid(store, { charge_name: 'Deleted one' }))).body.charge_id;
    await answerOf(t.api().DELETE('/hospital_charges/{charge_id}', { params: { path: { charge_id: deleted } } }));
    const foreign = (await create(valid(freshStore(), { charge_name: 'Foreign' }))).body.charge_id;
    const h = natsHeaders();
    h.set(HeaderNames.authorization, `Bearer ${t.token('cashier')}`);
    const asBilling = await t.nats('billing');
    const msg = await asBilling.request(
      CatalogueSubjects.check,
      JSON.stringify({ body: { store_id: store, charge_ids: [active, inactive, deleted, foreign, 987654, active] } }),
      { headers: h, timeout: 3000 },
    );
    expect(JSON.parse(new TextDecoder().decode(msg.data))).toEqual({
      status: 200,
      // The amounts tell billing which prices a bill sets apart from the catalogue's.
      body: { success: true, invalid_ids: [inactive, deleted, foreign, 987654], amounts: { [active]: 850 } },
    });
  });
});

describe('events', () => {
  it('publishes created, updated and deleted with the charge after the change and a message id', async () => {
    const reader = await EventReader.start(nc, 'CATALOGUE_EVENTS');
    try {
      const store = freshStore();
      const { body } = await create(valid(store, { charge_name: 'Evented' }), { sub: 5 });
      await answerOf(
        t.api().PUT('/hospital_charges/{charge_id}', {
          params: { path: { charge_id: body.charge_id } },
          body: { charge_name: 'Evented', charge_type: 'Lab', amount: 900 },
        }),
      );
      await answerOf(
        t.api().DELETE('/hospital_charges/{charge_id}', { params: { path: { charge_id: body.charge_id } } }),
      );
      const events = await reader.waitFor((e) => e.event.data.charge.id === body.charge_id, 3);
      expect(events.map((e) => e.subject)).toEqual([
        EventSubjects.chargeCreated,
        EventSubjects.chargeUpdated,
        EventSubjects.chargeDeleted,
      ]);
      for (const e of events) {
        expect(e.msgId).toBe(e.event.event_id);
        expect(e.event.type).toBe(e.subject);
      }
      expect(events[0]!.event.data.charge).toMatchObject({
        charge_name: 'Evented',
        amount: 850,
        created_by: 5,
        store_id: store,
      });
      expect(events[1]!.event.data.charge).toMatchObject({ amount: 900 });
      expect(new Set(events.map((e) => e.msgId)).size).toBe(3);
    } finally {
      reader.stop();
    }
  });

  it('publishes nothing for a rejected or unchanged write', async () => {
    const reader = await EventReader.start(nc, 'CATALOGUE_EVENTS');
    try {
      const store = freshStore();
      const { body } = await create(valid(store, { charge_name: 'Once' }));
      await create(valid(store, { charge_name: 'Once' })); // 409
      await answerOf(
        t.api().PUT('/hospital_charges/{charge_id}', {
          params: { path: { charge_id: body.charge_id } },
          body: { charge_name: 'Once', charge_type: 'Lab', amount: 850 },
        }),
      ); // no change
      await reader.waitFor((e) => e.event.data.charge.id === body.charge_id);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(reader.received.filter((e) => e.event.data.charge.store_id === store)).toHaveLength(1);
    } finally {
      reader.stop();
    }
  });
});
