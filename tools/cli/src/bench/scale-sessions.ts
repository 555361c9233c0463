/** The scale part's sessions: a year of them for 50 doctors, and the reads of a branch's day among them. */
import { MongoClient } from 'mongodb';
import { MEASURED_BRANCH } from './dataset';
import { probe, SCALE_PROBE as PROBE, settle, type Request } from './measure';
import { api, type Target } from './target';

const B = String(MEASURED_BRANCH);

/** A year of sessions for 50 doctors, created a month at a time; the reads of a branch's day. */
export async function measureSessions(target: Target): Promise<Record<string, unknown>> {
  const months = Array.from({ length: 13 }, (_, i) => {
    const d = new Date();
    d.setUTCDate(1);
    d.setUTCMonth(d.getUTCMonth() + 1 + i);
    return d.toISOString().slice(0, 7);
  });
  const timed = async (fn: () => Promise<any>) => {
    const started = performance.now();
    const result = await fn();
    return { ms: Math.round(performance.now() - started), result };
  };
  let created = 0;
  for (const month of months.slice(0, 12))
    created += (await api(target, 'POST', '/auto_create_sessions', { month, store_id: MEASURED_BRANCH })).created;
  await settle();
  const preview = await timed(() => api(target, 'GET', `/preview_auto_sessions?month=${months[12]}&store_id=${B}`));
  await settle();
  const autoCreate = await timed(() =>
    api(target, 'POST', '/auto_create_sessions', { month: months[12], store_id: MEASURED_BRANCH }),
  );
  const everything = await timed(() => api(target, 'GET', '/all_sessions'));
  // Every session stored, the ones other parts of the bench made included: what the unfiltered list must answer.
  const client = await MongoClient.connect(target.mongoUrl!);
  const stored = await client
    .db('clinic_sessions')
    .collection('sessions')
    .countDocuments({})
    .finally(() => client.close());
  const day = `${months[3]}-10`;
  const read: Request = { method: 'GET', path: '/all_sessions', query: { store_id: B, date: day } };
  const someSession = everything.result.sessions[0];
  const write: Request = { method: 'PUT', path: `/update_session/${someSession.id}`, body: { max_patients: 31 } };
  return {
    sessions: created + autoCreate.result.created,
    preview_ms: preview.ms,
    preview_entries: preview.result.preview.length,
    auto_create_ms: autoCreate.ms,
    auto_created: autoCreate.result.created,
    all_sessions_ms: everything.ms,
    all_sessions_count: everything.result.sessions.length,
    stored_sessions: stored,
    day_after_write: await probe(target, read, { ...PROBE, before: [write] }),
    day_repeat: await probe(target, read, PROBE),
  };
}
