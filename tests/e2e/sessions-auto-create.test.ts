/** Sessions through the gateway (setup in sessions-stack.ts): auto-creation, a rolled-back run's late inserts, the events. */
import { MongoClient } from 'mongodb';
import { EventSubjects } from '@clinic/contracts';
import { DAYS, datesOn } from './calendar';
import { EventReader } from './events';
import { doctor } from './fixtures';
import { answerOf, eventually, type ApiResponse } from './harness';
import { t, today, CREATION_YEAR, creationMonth, slot, addSession } from './sessions-stack';

describe('POST /auto_create_sessions', () => {
  it('answers 404 when no schedule matches, and 422 for a malformed month', async () => {
    const res = await answerOf(
      t.api().POST('/auto_create_sessions', { body: { doctor_id: 6, month: creationMonth(3) } }),
    );
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      success: false,
      error: `No doctor schedules found for March ${CREATION_YEAR}.`,
      code: 'NO_SCHEDULES',
    });
    expect(
      (await answerOf(t.api().POST('/auto_create_sessions', { body: { month: `03-${CREATION_YEAR}` } }))).status,
    ).toBe(422);
  });

  it('creates what the preview announced, publishes one event per session, and nothing when run again', async () => {
    const month = creationMonth(3);
    const nc = await t.nats();
    const reader = await EventReader.start(nc, 'SESSIONS_EVENTS');
    try {
      const preview = (
        await answerOf(t.api().GET('/preview_auto_sessions', { params: { query: { month: month, doctor_id: 1 } } }))
      ).body;
      const res = await answerOf(t.api().POST('/auto_create_sessions', { body: { month, doctor_id: 1 } }));
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        success: true,
        message: `Created ${preview.new_count} session(s) for March ${CREATION_YEAR}.`,
        created: preview.new_count,
        skipped: preview.skip_count,
        errors: [],
      });
      const sessions = (
        await answerOf(t.api().GET('/all_sessions', { params: { query: { doctor_id: 1 } } }))
      ).body.sessions.filter((s: any) => s.session_date.startsWith(month));
      expect(sessions).toHaveLength(preview.new_count);
      expect(sessions.find((s: any) => s.session_date === datesOn(month, 'Monday')[0])).toMatchObject({
        start_time: '08:00',
        end_time: '11:00',
        max_patients: 20,
        store_id: 1,
        status: 'Open',
      });
      const events = await reader.waitFor(
        (e) => e.subject === EventSubjects.sessionCreated && e.event.data.session.session_date.startsWith(month),
        preview.new_count,
      );
      expect(new Set(events.map((e) => e.event.data.session.id))).toEqual(new Set(sessions.map((s: any) => s.id)));
      expect(
        (await answerOf(t.api().GET('/preview_auto_sessions', { params: { query: { month: month, doctor_id: 1 } } })))
          .body,
      ).toMatchObject({
        new_count: 0,
        skip_count: preview.new_count,
      });

      const again = await answerOf(t.api().POST('/auto_create_sessions', { body: { month, doctor_id: 1 } }));
      expect(again.body).toMatchObject({ created: 0, skipped: preview.new_count, errors: [] });
    } finally {
      reader.stop();
    }
  });

  it('skips past dates and entries without times, reporting the latter, as the preview announced', async () => {
    const preview = (await answerOf(t.api().GET('/preview_auto_sessions', { params: { query: { doctor_id: 5 } } })))
      .body;
    const res = await answerOf(t.api().POST('/auto_create_sessions', { body: { doctor_id: 5 } }));
    expect(res.status).toBe(201);
    expect(res.body.created).toBe(preview.new_count);
    expect(res.body.skipped).toBe(preview.skip_count);
    const month = today().format('YYYY-MM');
    const todayText = today().format('YYYY-MM-DD');
    const thursdays = datesOn(month, 'Thursday');
    const tuesdays = datesOn(month, 'Tuesday');
    const futureThursdays = thursdays.filter((d) => d >= todayText);
    const futureTuesdays = tuesdays.filter((d) => d >= todayText);
    expect(res.body.created).toBe(futureThursdays.length);
    expect(res.body.skipped).toBe(thursdays.length - futureThursdays.length + tuesdays.length);
    expect(res.body.errors).toHaveLength(futureTuesdays.length);
    for (const error of res.body.errors)
      expect(error).toMatch(
        /^Dr\. Gaps, \d{4}-\d{2}-\d{2} session 1: the schedule has no start or end time; skipped\.$/,
      );
  });

  it('returns at most 10 errors', async () => {
    await t.seed({
      doctors: [doctor(8, { name: 'Dr. Broken', schedule: DAYS.map((day) => slot(day, 1, null, null)) })],
    });
    const res = await answerOf(
      t.api().POST('/auto_create_sessions', { body: { doctor_id: 8, month: creationMonth(10) } }),
    ); // 31 days
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ created: 0, skipped: 31 });
    expect(res.body.errors).toHaveLength(10);
  });

  it.each([7, 8, 12])('creates each session exactly once when three runs for month %s race', async (monthNumber) => {
    const month = creationMonth(monthNumber);
    const preview = (await answerOf(t.api().GET('/preview_auto_sessions', { params: { query: { month: month } } })))
      .body;
    const runs = await Promise.all(
      [1, 2, 3].map(() => answerOf(t.api().POST('/auto_create_sessions', { body: { month } }))),
    );
    expect(runs.map((r) => r.status)).toEqual([201, 201, 201]);
    const expectedCreated = preview.preview.filter(
      (e: any) => !e.exists && !e.is_past && e.start_time && e.end_time,
    ).length;
    expect(runs.reduce((sum, r) => sum + r.body.created, 0)).toBe(expectedCreated);
    const all = (await answerOf(t.api().GET('/all_sessions'))).body.sessions.filter((s: any) =>
      s.session_date.startsWith(month),
    );
    expect(all).toHaveLength(expectedCreated);
    expect(new Set(all.map((s: any) => `${s.doctor_id}/${s.session_date}/${s.session_no}`)).size).toBe(expectedCreated);
  });

  it('answers 500 and leaves no partial month when the database fails mid-run', async () => {
    const month = creationMonth(11);
    // Enough doctors (about 2,400 sessions) that the run lasts long enough to be caught in progress on a busy machine.
    await t.seed({
      doctors: Array.from({ length: 40 }, (_, i) =>
        doctor(100 + i, {
          name: `Dr. Busy ${i}`,
          store_id: 2,
          schedule: DAYS.flatMap((day) => [slot(day, 1, '08:00', '10:00'), slot(day, 2, '10:00', '12:00')]),
        }),
      ),
    });
    const preview = (
      await answerOf(t.api().GET('/preview_auto_sessions', { params: { query: { month: month, store_id: 2 } } }))
    ).body;
    const db = t.stack.infra.db!;
    // Bounded: a database that stops answering fails the test with its log rather than hanging it.
    const mongo = await MongoClient.connect(t.stack.infra.mongoUrl, {
      serverSelectionTimeoutMS: 2_000,
      socketTimeoutMS: 10_000,
    });
    let res: ApiResponse;
    try {
      const runs = mongo.db('clinic_sessions').collection('auto_create_runs');
      const pending = answerOf(t.api().POST('/auto_create_sessions', { body: { month, store_id: 2 } }));
      // The database dies once the run has begun and before it completes, however fast the machine
      // (a fixed delay let a quick run finish first). Killed rather than paused: a paused server
      // can let an operation sent before the pause wait it out and succeed.
      await eventually(async () => (await runs.findOne({ month, status: 'running' })) ?? undefined, 20_000, 2).catch(
        (err: Error) => {
          throw new Error(`${err.message}\nthe database's log:\n${db.logTail(40)}`);
        },
      );
      db.signal('SIGKILL');
      await db.waitForExit();
      res = await pending;
    } finally {
      if (!db.running) await t.stack.infra.startDb();
      await mongo.close().catch(() => undefined);
    }
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ success: false, error: 'Internal server error.', code: 'INTERNAL_ERROR' });
    // Once the service sees its database again, nothing of the failed run is visible,
    // and once rolled back the month can be created whole.
    await t.stack.waitHealthy(20_000);
    const inMonth = async () =>
      (await answerOf(t.api().GET('/all_sessions', { params: { query: { store_id: 2 } } }))).body.sessions.filter(
        (s: any) => s.session_date.startsWith(month),
      );
    expect(await inMonth()).toEqual([]);
    const retry = await eventually(
      async () => {
        const r = await answerOf(t.api().POST('/auto_create_sessions', { body: { month, store_id: 2 } }));
        return r.status === 201 ? r : undefined;
      },
      20_000,
      500,
    );
    expect(retry.body.created).toBe(preview.new_count);
    expect(await inMonth()).toHaveLength(preview.new_count);
  });
});

describe('late inserts of a rolled-back run', () => {
  it('keeps them hidden, and a new run of the month fills their slots anew', async () => {
    const month = creationMonth(5);
    const preview = (
      await answerOf(t.api().GET('/preview_auto_sessions', { params: { query: { month: month, doctor_id: 1 } } }))
    ).body;
    const slot = preview.preview[0];
    // What a paused database executes after the run that sent it was rolled back.
    const mongo = await MongoClient.connect(t.stack.infra.mongoUrl);
    try {
      const db = mongo.db('clinic_sessions');
      await db
        .collection<any>('auto_create_runs')
        .insertOne({ _id: 'late-run', status: 'rolled_back', month, started_at: new Date(), finished_at: new Date() });
      await db.collection<any>('sessions').insertOne({
        _id: '990001',
        id: 990001,
        doctor_id: 1,
        store_id: 1,
        session_date: slot.session_date,
        session_no: slot.session_no,
        start_time: slot.start_time,
        end_time: slot.end_time,
        max_patients: slot.max_patients,
        status: 'active',
        created_at: new Date(),
        run_id: 'late-run',
        _event_ids: [],
      });
    } finally {
      await mongo.close();
    }
    expect(
      (await answerOf(t.api().GET('/get_session/{session_id}', { params: { path: { session_id: 990001 } } }))).status,
    ).toBe(404);
    expect(
      (await answerOf(t.api().GET('/all_sessions', { params: { query: { doctor_id: 1, date: slot.session_date } } })))
        .body.sessions,
    ).toEqual([]);
    const res = await answerOf(t.api().POST('/auto_create_sessions', { body: { month, doctor_id: 1 } }));
    expect(res.body).toMatchObject({ created: preview.new_count, skipped: preview.skip_count });
    const sessions = (
      await answerOf(t.api().GET('/all_sessions', { params: { query: { doctor_id: 1 } } }))
    ).body.sessions.filter((x: any) => x.session_date.startsWith(month));
    expect(sessions).toHaveLength(preview.new_count);
    // The late insert's slot is filled anew (a session never changes runs), and the late insert is gone.
    expect(
      sessions.find((x: any) => x.session_date === slot.session_date && x.session_no === slot.session_no),
    ).toBeDefined();
    expect(sessions.map((x: any) => x.id)).not.toContain(990001);
    expect(
      (await answerOf(t.api().GET('/get_session/{session_id}', { params: { path: { session_id: 990001 } } }))).status,
    ).toBe(404);
  });
});

describe('events', () => {
  it('publishes created, updated and deleted for a session', async () => {
    const nc = await t.nats();
    const reader = await EventReader.start(nc, 'SESSIONS_EVENTS');
    try {
      const id = await addSession();
      await answerOf(
        t
          .api()
          .PUT('/update_session/{session_id}', { params: { path: { session_id: id } }, body: { max_patients: 9 } }),
      );
      await answerOf(t.api().DELETE('/delete_session/{session_id}', { params: { path: { session_id: id } } }));
      const events = await reader.waitFor((e) => e.event.data.session.id === id, 3);
      expect(events.map((e) => e.subject)).toEqual([
        EventSubjects.sessionCreated,
        EventSubjects.sessionUpdated,
        EventSubjects.sessionDeleted,
      ]);
      expect(events[1]!.event.data.session.max_patients).toBe(9);
      for (const e of events) expect(e.msgId).toBe(e.event.event_id);
    } finally {
      reader.stop();
    }
  });
});
