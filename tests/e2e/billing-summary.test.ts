/** Bills through the gateway (setup in billing-stack.ts): the revenue summary, and the events a bill's life publishes. */
import { MongoClient } from 'mongodb';
import type { operations } from '@clinic/client';
import { EventSubjects } from '@clinic/contracts';
import { EventReader } from './events';
import { answerOf, failureOf, refused } from './harness';
import { t, chargesOf, LIST_STORES, createBill, readBill } from './billing-stack';

type SummaryQuery = operations['getLabBillSummary']['parameters']['query'];
/** The summary as GET /lab_bills/summary answers it for `query`. */
const summaryOf = async (query: SummaryQuery) =>
  (await answerOf(t.api().GET('/lab_bills/summary', { params: { query } }))).body.summary;

describe('GET /lab_bills/summary', () => {
  it('requires store_id and answers zeros when nothing matches', async () => {
    expect((await answerOf(t.api().GET('/lab_bills/summary', { params: { query: refused({}) } }))).body).toEqual(
      failureOf('store_id is required.'),
    );
    const res = await answerOf(t.api().GET('/lab_bills/summary', { params: { query: { store_id: 999 } } }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      summary: {
        total_bills: 0,
        paid_count: 0,
        pending_count: 0,
        cash_count: 0,
        card_count: 0,
        online_count: 0,
        total_revenue: 0,
        total_discounts: 0,
        total_subtotal: 0,
        cash_revenue: 0,
        card_revenue: 0,
        online_revenue: 0,
      },
    });
  });

  it('counts and sums active bills exactly, within the date filters', async () => {
    const store = LIST_STORES[4]!;
    const line = (unit_price: number, qty = 1) => [
      { charge_id: chargesOf(store).active, charge_name: 'CBC', unit_price, qty },
    ];
    await createBill({ bill_date: '2090-05-01', payment_method: 'Cash', items: line(0.1) }, {}, store);
    await createBill({ bill_date: '2090-05-01', payment_method: 'Cash', items: line(0.2) }, {}, store);
    await createBill(
      {
        bill_date: '2090-05-02',
        payment_method: 'Card',
        payment_status: 'Pending',
        items: line(100.1, 3),
        discount_type: 'pct',
        discount_value: 33.333,
      },
      {},
      store,
    );
    await createBill(
      { bill_date: '2090-05-03', payment_method: 'Online', items: line(19.99, 2), discount_value: 0.99 },
      {},
      store,
    );
    const cancelled = await createBill(
      { bill_date: '2090-05-03', payment_method: 'Online', items: line(5000) },
      {},
      store,
    );
    await answerOf(t.api().DELETE('/lab_bills/{bill_id}', { params: { path: { bill_id: cancelled.bill_id } } }));

    const all = await summaryOf({ store_id: store });
    // Card bill: 300.30 - round(300.30 x 33.333%, 2) = 300.30 - 100.10 = 200.20
    // Online bill: 39.98 - 0.99 = 38.99
    expect(all).toEqual({
      total_bills: 4,
      paid_count: 3,
      pending_count: 1,
      cash_count: 2,
      card_count: 1,
      online_count: 1,
      total_revenue: 239.49,
      total_discounts: 101.09,
      total_subtotal: 340.58,
      cash_revenue: 0.3,
      card_revenue: 200.2,
      online_revenue: 38.99,
    });
    const day = await summaryOf({ store_id: store, date: '2090-05-01', from_date: '2090-05-02' });
    expect(day).toMatchObject({ total_bills: 2, total_revenue: 0.3, cash_revenue: 0.3, card_count: 0 });
    const range = await summaryOf({ store_id: store, from_date: '2090-05-02', to_date: '2090-05-03' });
    expect(range).toMatchObject({ total_bills: 2, total_revenue: 239.19, pending_count: 1, online_revenue: 38.99 });
  });

  it('follows each update at once: a change of notes leaves the sums, a change of payment moves them', async () => {
    const store = LIST_STORES[7]!;
    const line = [{ charge_id: chargesOf(store).active, charge_name: 'CBC', unit_price: 120.5, qty: 2 }];
    const { bill_id } = await createBill(
      { bill_date: '2090-06-01', payment_method: 'Cash', payment_status: 'Pending', items: line },
      {},
      store,
    );
    const summary = () => summaryOf({ store_id: store, date: '2090-06-01' });
    const pending = {
      total_bills: 1,
      paid_count: 0,
      pending_count: 1,
      cash_count: 1,
      card_count: 0,
      cash_revenue: 241,
      card_revenue: 0,
      total_revenue: 241,
    };
    expect(await summary()).toMatchObject(pending);
    // The version tokens of the bill's day and month: only a change the totals count gives them new ones.
    const mongo = await MongoClient.connect(t.stack.infra.mongoUrl);
    const tokens = async () =>
      (
        await mongo
          .db('clinic_billing')
          .collection<{ _id: string; token: string }>('bill_days')
          .find({ _id: { $in: [`${store}:2090-06-01`, `m:${store}:2090-06`] } })
          .sort({ _id: 1 })
          .toArray()
      ).map((d) => d.token);
    const registered = await tokens();
    expect(registered).toHaveLength(2);

    expect(
      (
        await answerOf(
          t.api().PUT('/lab_bills/{bill_id}', { params: { path: { bill_id: bill_id } }, body: { notes: 'fasting' } }),
        )
      ).status,
    ).toBe(200);
    expect(await summary()).toMatchObject(pending);
    expect((await readBill(bill_id)).notes).toBe('fasting');
    expect(await tokens()).toEqual(registered);

    expect(
      (
        await answerOf(
          t.api().PUT('/lab_bills/{bill_id}', {
            params: { path: { bill_id: bill_id } },
            body: { payment_status: 'Paid', payment_method: 'Card' },
          }),
        )
      ).status,
    ).toBe(200);
    const [dayToken, monthToken] = await tokens();
    await mongo.close();
    expect(dayToken).not.toBe(registered[0]);
    expect(monthToken).not.toBe(registered[1]);
    expect(await summary()).toMatchObject({
      ...pending,
      paid_count: 1,
      pending_count: 0,
      cash_count: 0,
      card_count: 1,
      cash_revenue: 0,
      card_revenue: 241,
    });
    const list = (
      await answerOf(
        t.api().GET('/lab_bills', {
          params: { query: { store_id: store, payment_method: 'Card', payment_status: 'Paid' } },
        }),
      )
    ).body;
    expect(list.total).toBe(1);
    expect(list.bills[0].notes).toBe('fasting');

    expect(
      (await answerOf(t.api().DELETE('/lab_bills/{bill_id}', { params: { path: { bill_id: bill_id } } }))).status,
    ).toBe(200);
    expect(await summary()).toMatchObject({ total_bills: 0, total_revenue: 0 });
  });

  it('sums whole months and the days around them, and follows a write to either', async () => {
    const store = LIST_STORES[8]!;
    const line = (unit_price: number) => [
      { charge_id: chargesOf(store).active, charge_name: 'CBC', unit_price, qty: 1 },
    ];
    const dated = (bill_date: string, unit_price: number) =>
      createBill({ bill_date, payment_method: 'Cash', items: line(unit_price) }, {}, store);
    await dated('2090-05-19', 1000); // before the range
    await dated('2090-05-20', 1); // the range's first day
    const june = await dated('2090-06-30', 10); // a whole month
    await dated('2090-07-20', 100); // the range's last day
    await dated('2090-07-21', 2000); // after it
    const revenue = async (query: string) =>
      (await t.get(`/lab_bills/summary?store_id=${store}${query}`)).body.summary.total_revenue;
    const range = '&from_date=2090-05-20&to_date=2090-07-20';
    expect(await revenue(range)).toBe(111);
    expect(await revenue('')).toBe(3111);
    expect(await revenue('&from_date=2090-06-01&to_date=2090-06-30')).toBe(10);

    // A write to the whole month, then to an edge day: each read answers it at once.
    expect(
      (await answerOf(t.api().DELETE('/lab_bills/{bill_id}', { params: { path: { bill_id: june.bill_id } } }))).status,
    ).toBe(200);
    expect(await revenue(range)).toBe(101);
    expect(await revenue('')).toBe(3101);
    await dated('2090-07-01', 1000);
    expect(await revenue(range)).toBe(1101);
    expect(await revenue('&from_date=2090-06-01')).toBe(3100);
  });
});

describe('events', () => {
  it('publishes created, updated and cancelled for one bill, in order, with message ids', async () => {
    const nc = await t.nats();
    const reader = await EventReader.start(nc, 'BILLING_EVENTS');
    try {
      const created = await createBill({ payment_method: 'Cash', received_amount: 900 });
      await answerOf(
        t.api().PUT('/lab_bills/{bill_id}', {
          params: { path: { bill_id: created.bill_id } },
          body: { payment_status: 'Pending' },
        }),
      );
      await answerOf(t.api().DELETE('/lab_bills/{bill_id}', { params: { path: { bill_id: created.bill_id } } }));
      const events = await reader.waitFor((e) => e.event.data.bill.id === created.bill_id, 3);
      expect(events.map((e) => e.subject)).toEqual([
        EventSubjects.billCreated,
        EventSubjects.billUpdated,
        EventSubjects.billCancelled,
      ]);
      for (const e of events) expect(e.msgId).toBe(e.event.event_id);
      expect(events[0]!.event.data.bill).toMatchObject({
        bill_number: created.bill_number,
        grand_total: 850,
        subtotal: 850,
        received_amount: 900,
        items: [{ charge_id: chargesOf(1).active, qty: 1, unit_price: 850, line_total: 850 }],
      });
      expect(events[1]!.event.data.bill).toMatchObject({ payment_status: 'Pending', status: 'active' });
      expect(events[2]!.event.data.bill).toMatchObject({ status: 'cancelled', is_deleted: true });
    } finally {
      reader.stop();
    }
  });
});
