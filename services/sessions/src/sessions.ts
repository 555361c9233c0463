/** Channeling-session operations: the spec's steps in order. */
import { randomUUID } from 'node:crypto';
import { EventSubjects, Limits, success, type DoctorRecord, type ServiceReply, type ServiceRequest } from '@clinic/contracts';
import {
  badRequest,
  conflict,
  EncodedReply,
  notFound,
  pathId,
  type ClinicClock,
  type HandlerContext,
  type PreparedEvents,
  type Outbox,
  type RecordLocks,
  type ReferenceData,
} from '@clinic/service-kit';
import { slotKey, type SessionDoc, type SessionRepository } from './repository';
import {
  datesOfMonth,
  deleteRefusal,
  executePlan,
  hasTimes,
  MESSAGES,
  monthLabel,
  parseAutoCreateBody,
  parseListQuery,
  parseMaxPatients,
  parseNewSession,
  parsePreviewQuery,
  parseSessionChanges,
  planMonth,
  requireSessionBody,
  schedulingDoctors,
  type ScheduleSelection,
} from './rules';

export class SessionOperations {
  /** Runs this process failed to roll back (the database was away); retried until done. */
  private readonly unfinishedRollbacks = new Set<string>();

  constructor(
    private readonly repo: SessionRepository,
    private readonly refs: ReferenceData,
    private readonly outbox: Outbox,
    private readonly clock: ClinicClock,
    private readonly locks: RecordLocks,
  ) {}

  async list(request: ServiceRequest): Promise<EncodedReply> {
    const filter = parseListQuery(request.query);
    return (filter.conflicts ? this.repo.listConflicts.bind(this.repo) : this.repo.list.bind(this.repo))(filter, (views) => {
      const sessions = views
        .filter((s) => filter.status === undefined || s.status === filter.status)
        .sort(
          (a, b) =>
            String(b.session_date).localeCompare(String(a.session_date)) ||
            String(a.start_time).localeCompare(String(b.start_time)) ||
            Number(a.id) - Number(b.id),
        );
      return new EncodedReply(success(200, { sessions }));
    });
  }

  async get(request: ServiceRequest): Promise<ServiceReply> {
    const doc = await this.repo.findVisible(pathId(request, 'session_id', MESSAGES.notFound));
    if (!doc) throw notFound(MESSAGES.notFound);
    const [session] = await this.repo.views([doc]);
    return success(200, { session });
  }

  async create(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const input = parseNewSession(request.body, this.clock.today());
    const doctor = await this.refs.get('doctor', input.doctor_id);
    if (!doctor || doctor.status !== 'Active') throw notFound(MESSAGES.doctorNotFound);
    if (doctor.store_id === null) throw badRequest(MESSAGES.doctorNoBranch);
    const maxPatients = parseMaxPatients(input.max_patients_input);
    const doc = await this.repo.create(
      {
        doctor_id: input.doctor_id,
        store_id: doctor.store_id,
        session_date: input.session_date,
        session_no: input.session_no,
        start_time: input.start_time,
        end_time: input.end_time,
        max_patients: maxPatients,
        status: input.status,
      },
      ctx.correlationId,
    );
    return success(201, { message: MESSAGES.created, session_id: doc.id });
  }

  async update(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const body = requireSessionBody(request.body);
    const id = pathId(request, 'session_id', MESSAGES.notFound);
    await this.locks.run('session', id, async () => {
      const existing = await this.repo.findVisible(id);
      if (!existing) throw notFound(MESSAGES.notFound);
      await this.repo.update(existing, parseSessionChanges(body), ctx.correlationId);
    });
    return success(200, { message: MESSAGES.updated, session_id: id });
  }

  async delete(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'session_id', MESSAGES.notFound);
    await this.locks.run('session', id, async () => {
      const existing = await this.repo.findVisible(id);
      if (!existing) throw notFound(MESSAGES.notFound);
      const active = (await this.repo.bookedCounts([id])).get(id) ?? 0;
      if (active > 0) throw conflict(deleteRefusal(active));
      await this.repo.remove(existing, ctx.correlationId);
    });
    return success(200, { message: MESSAGES.deleted, session_id: id });
  }

  private async doctorsFor(selection: ScheduleSelection): Promise<DoctorRecord[]> {
    const all = await this.refs.collection('doctor').find({ deleted: false }).toArray();
    return schedulingDoctors(all, selection);
  }

  async preview(request: ServiceRequest): Promise<ServiceReply> {
    const selection = parsePreviewQuery(request.query, this.clock.currentMonth());
    const doctors = await this.doctorsFor(selection);
    const plan = planMonth(doctors, selection.month);
    const dates = datesOfMonth(selection.month);
    const range = { from: dates[0].date, to: dates[dates.length - 1].date };
    const [taken, blocks] = await Promise.all([
      this.repo.existingSlots(doctors.map((d) => d.id), range.from, range.to),
      this.repo.dayBlocks(range, doctors.map((d) => d.id)),
    ]);
    const today = this.clock.today();
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
      exists: taken.has(slotKey(p.doctor.id, p.session_date, p.entry.session_no)),
      is_past: p.session_date < today,
      ...(blocks.shown ? blocks.of(p.doctor.id, p.doctor.store_id, p.session_date) : {}),
    }));
    // An entry without times will be skipped by auto-creation (its rule 3), and so will one on a leave or a
    // holiday, so neither is announced as new.
    const newCount = preview.filter(
      (e, i) => !e.exists && !e.is_past && hasTimes(plan[i]) && !blocks.blocks(plan[i].doctor.id, plan[i].doctor.store_id, plan[i].session_date),
    ).length;
    return success(200, {
      month: monthLabel(selection.month),
      preview,
      new_count: newCount,
      skip_count: preview.length - newCount,
    });
  }

  /**
   * Inserts the month's sessions hidden under a run, records their events,
   * then completes the run with one write: readers see all of the month or
   * none of it. A run that fails is rolled back here, or later by the janitor.
   */
  async autoCreate(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const selection = parseAutoCreateBody(request.body, this.clock.currentMonth());
    // A month left half-rolled-back would otherwise block its own re-creation.
    await this.finishRollbacks();
    const label = monthLabel(selection.month);
    const doctors = await this.doctorsFor(selection);
    const plan = planMonth(doctors, selection.month);
    if (plan.length === 0) throw notFound(`No doctor schedules found for ${label}.`); // rule 1
    const dates = datesOfMonth(selection.month);
    const blocks = await this.repo.dayBlocks({ from: dates[0].date, to: dates[dates.length - 1].date }, doctors.map((d) => d.id));

    const runId = randomUUID();
    let pending: PreparedEvents | null = null;
    await this.repo.startRun(runId, selection.month);
    try {
      const outcome = await executePlan(plan, this.clock.today(), (plans) =>
        this.repo.insertAllForRun(
          runId,
          plans.map((p) => ({
            doctor_id: p.doctor.id,
            store_id: p.doctor.store_id as number,
            session_date: p.session_date,
            session_no: p.entry.session_no,
            start_time: p.entry.start_time as string,
            end_time: p.entry.end_time as string,
            max_patients: p.entry.max_patients ?? null,
            status: 'active',
          })),
        ),
        (p) => blocks.blocks(p.doctor.id, p.doctor.store_id, p.session_date),
      );
      const views = await this.repo.views(outcome.created as SessionDoc[]);
      // Several documents, one commit: every event's proof is the run's completion.
      const proof = this.repo.runCommitProof(runId);
      pending = await this.outbox.prepare(
        views.map((session) => ({ subject: EventSubjects.sessionCreated, data: { session }, correlationId: ctx.correlationId, proof })),
      );
      await this.repo.completeRun(runId);
      pending.release();
      return success(201, {
        message: `Created ${outcome.created.length} session(s) for ${label}.`,
        created: outcome.created.length,
        skipped: outcome.skipped,
        errors: outcome.errors.slice(0, Limits.autoCreateErrorsMax),
      });
    } catch (err) {
      ctx.log.error({ err, run_id: runId }, 'auto-creation failed; rolling back');
      try {
        await pending?.discard();
        const removed = await this.repo.rollBackRun(runId);
        ctx.log.warn({ run_id: runId, removed }, 'auto-creation rolled back');
      } catch (rollbackError) {
        // Its sessions stay hidden meanwhile; finishRollbacks retries until the database answers.
        this.unfinishedRollbacks.add(runId);
        ctx.log.error({ err: rollbackError, run_id: runId }, 'rollback incomplete; will be retried');
      }
      throw err;
    }
  }

  async finishRollbacks(): Promise<void> {
    for (const runId of [...this.unfinishedRollbacks]) {
      await this.repo.rollBackRun(runId);
      this.unfinishedRollbacks.delete(runId);
    }
  }
}
