/** Monthly auto-creation from weekly schedules, and its preview: the spec's steps in order. */
import { randomUUID } from 'node:crypto';
import {
  EventSubjects,
  Limits,
  SESSIONS_MESSAGES,
  success,
  type DoctorRecord,
  type ServiceReply,
  type ServiceRequest,
} from '@clinic/contracts';
import { fail, requireBranch, withinBranches, type ClinicClock, type HandlerContext } from '@clinic/service-kit';
import type { Outbox, PreparedEvents, WriteProof } from '@clinic/service-kit/storage';
import {
  isStored,
  monthLabel,
  monthRange,
  planMonth,
  runOf,
  schedulingDoctors,
  type PlannedSession,
} from '../domain/planning';
import { parseAutoCreateBody, parsePreviewQuery, type ScheduleSelection } from '../domain/rules';
import { slotKey, type RunInsertResult, type SessionStorage } from '../storage';
import type { SessionDoc } from '../domain/session';

/** Sessions of a run inserted, then recorded in the outbox, together (one insert each). */
const RUN_SLICE = 500;

export class AutoCreation {
  /** Runs this process failed to roll back (the database was away); retried until done. */
  private readonly unfinishedRollbacks = new Set<string>();

  constructor(
    private readonly storage: SessionStorage,
    private readonly outbox: Outbox,
    private readonly clock: ClinicClock,
  ) {}

  /** The doctors whose schedules take part, of the branches the caller reaches (403 for a branch it names outside them). */
  private async doctorsFor(selection: ScheduleSelection, ctx: HandlerContext): Promise<DoctorRecord[]> {
    if (selection.store_id !== undefined) requireBranch(ctx, selection.store_id);
    return withinBranches(ctx, schedulingDoctors(await this.storage.queries.liveDoctors(), selection));
  }

  async preview(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const selection = parsePreviewQuery(request.query, this.clock.currentMonth());
    const doctors = await this.doctorsFor(selection, ctx);
    const plan = planMonth(doctors, selection.month);
    const range = monthRange(selection.month);
    const [taken, blocks] = await Promise.all([
      this.storage.queries.existingSlots(
        doctors.map((d) => d.id),
        range.from,
        range.to,
      ),
      this.storage.queries.dayBlocks(
        range,
        doctors.map((d) => d.id),
      ),
    ]);
    const today = this.clock.today();
    const slotTaken = (p: PlannedSession) => taken.has(slotKey(p.doctor.id, p.session_date, p.entry.session_no));
    const blocked = (p: PlannedSession) => blocks.blocks(p.doctor.id, p.doctor.store_id, p.session_date);
    const preview = plan.map((p) => ({
      doctor_id: p.doctor.id,
      doctor_name: p.doctor.name,
      session_date: p.session_date,
      day: p.day,
      session_no: p.entry.session_no,
      start_time: p.entry.start_time ?? null,
      end_time: p.entry.end_time ?? null,
      max_patients: p.entry.max_patients ?? null,
      channeling_fee: p.doctor.channeling_fee,
      exists: slotTaken(p),
      is_past: p.session_date < today,
      ...(blocks.shown ? blocks.of(p.doctor.id, p.doctor.store_id, p.session_date) : {}),
    }));
    // New: what auto-creation would store now, by its own rules (a past date, a leave or holiday, an entry
    // without times are skipped), whose slot is still free.
    const newCount = runOf(plan, today, blocked).insertable.filter((p) => !slotTaken(p)).length;
    return success(200, {
      month: monthLabel(selection.month),
      preview,
      new_count: newCount,
      skip_count: preview.length - newCount,
    });
  }

  /**
   * Inserts the month's sessions hidden under a run, 500 at a time, records
   * each slice's events while the next slice is inserted, then completes the
   * run with one write: readers see all of the month or none of it. A run that
   * fails is rolled back here, or later by the janitor.
   */
  async autoCreate(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const selection = parseAutoCreateBody(request.body, this.clock.currentMonth());
    // A month left half-rolled-back would otherwise block its own re-creation.
    await this.finishRollbacks();
    const label = monthLabel(selection.month);
    const doctors = await this.doctorsFor(selection, ctx);
    const plan = planMonth(doctors, selection.month);
    if (plan.length === 0) throw fail('NO_SCHEDULES', SESSIONS_MESSAGES.noSchedules(label)); // rule 1
    const blocks = await this.storage.queries.dayBlocks(
      monthRange(selection.month),
      doctors.map((d) => d.id),
    );

    const runId = randomUUID();
    // Each slice's events are recorded while the next slice of sessions is inserted.
    const recording: Array<Promise<PreparedEvents>> = [];
    await this.storage.runs.start(runId, selection.month);
    try {
      // Rules 2 to 5: past, blocked and time-less entries are not stored; taken slots are skipped.
      const run = runOf(plan, this.clock.today(), (p) => blocks.blocks(p.doctor.id, p.doctor.store_id, p.session_date));
      const rows = run.insertable.map((p) => ({
        doctor_id: p.doctor.id,
        store_id: p.doctor.store_id as number,
        session_date: p.session_date,
        session_no: p.entry.session_no,
        start_time: p.entry.start_time as string,
        end_time: p.entry.end_time as string,
        max_patients: p.entry.max_patients ?? null,
        status: 'active' as const,
      }));
      // Several documents, one commit: every event's proof is the run's completion.
      const proof = this.storage.runs.commitProof(runId);
      const ids = await this.storage.runs.drawIds(rows.length);
      const inserted: RunInsertResult[] = [];
      let recordingFailed = false;
      for (let from = 0; from < rows.length; from += RUN_SLICE) {
        // A slice whose events could not be recorded fails the run (below): the next ones would only be rolled back.
        if (recordingFailed) break;
        const to = from + RUN_SLICE;
        const results = await this.storage.runs.insertAll(runId, rows.slice(from, to), ids.slice(from, to));
        inserted.push(...results);
        const created = results.filter(isStored);
        const recorded = this.recordCreated(created, proof, ctx.correlationId);
        // Awaited below, after the next slices; until then its failure must not count as an unhandled rejection,
        // which stops the process.
        recorded.catch(() => {
          recordingFailed = true;
        });
        recording.push(recorded);
      }
      const pending = await Promise.all(recording);
      const outcome = run.outcome<SessionDoc>(inserted);
      await this.storage.runs.complete(runId);
      for (const events of pending) events.release();
      return success(201, {
        message: SESSIONS_MESSAGES.autoCreated(outcome.created.length, label),
        created: outcome.created.length,
        skipped: outcome.skipped,
        errors: outcome.errors.slice(0, Limits.autoCreateErrorsMax),
      });
    } catch (err) {
      ctx.log.error({ err, run_id: runId }, 'auto-creation failed; rolling back');
      try {
        // Every slice's recording has ended (recorded or failed) before what was recorded is discarded.
        for (const recorded of await Promise.allSettled(recording))
          if (recorded.status === 'fulfilled') await recorded.value.discard();
        const removed = await this.storage.runs.rollBack(runId);
        ctx.log.warn({ run_id: runId, removed }, 'auto-creation rolled back');
      } catch (rollbackError) {
        // Its sessions stay hidden meanwhile; finishRollbacks retries until the database answers.
        this.unfinishedRollbacks.add(runId);
        ctx.log.error({ err: rollbackError, run_id: runId }, 'rollback incomplete; will be retried');
      }
      throw err;
    }
  }

  /** The created events of a slice of a run's sessions, recorded in the outbox (not yet released). */
  private async recordCreated(
    created: SessionDoc[],
    proof: WriteProof,
    correlationId: string,
  ): Promise<PreparedEvents> {
    const views = await this.storage.queries.views(created);
    return this.outbox.prepare(
      views.map((session) => ({ subject: EventSubjects.sessionCreated, data: { session }, correlationId, proof })),
    );
  }

  async finishRollbacks(): Promise<void> {
    for (const runId of [...this.unfinishedRollbacks]) {
      await this.storage.runs.rollBack(runId);
      this.unfinishedRollbacks.delete(runId);
    }
  }
}
