/**
 * Approvals: a cashier asks for what a control refused, with a
 * reason; an admin approves or declines it; the request it covers is sent
 * again with its `approval_id` and uses it, once (a compare-and-set write of
 * the approval: two requests racing for it cannot both have it). A use whose
 * change is then refused gives the approval back. Catalogue uses and gives
 * back approvals over NATS for its own control.
 */
import {
  APPROVAL_MESSAGES,
  EventSubjects,
  success,
  type ApprovalTarget,
  type Caller,
  type ServiceReply,
  type ServiceRequest,
} from '@clinic/contracts';
import {
  approvalRequired,
  callerOf,
  fail,
  foundInBranch,
  pathId,
  requireBranch,
  ServiceError,
  type ClinicClock,
  type HandlerContext,
} from '@clinic/service-kit';
import { assertUsable, type Approval, type ApprovalCheck, type StaffActor } from '../domain/approvals';
import {
  parseApprovalRequest,
  parseApprovalsQuery,
  parseDecision,
  parseReleaseApproval,
  parseUseApproval,
} from '../domain/approval-input';
import type { BillingReferences } from '../references';
import type { BillStorage } from '../storage';
import type { ApprovalDoc } from '../domain/approvals';
import { approvalView, namedInApproval } from '../views/approval-view';

/** An approval a change used, and how to give it back should the change be refused. */
export interface UsedApproval {
  approval: ApprovalDoc;
  giveBack(): Promise<void>;
}

export class ApprovalOperations {
  constructor(
    private readonly storage: BillStorage,
    private readonly refs: BillingReferences,
    private readonly clock: ClinicClock,
  ) {}

  private get store() {
    return this.storage.cashOffice.approvals;
  }

  /** POST /approvals: an admin's own request is approved as it is made. */
  async requestApproval(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const { store_id, checks, reason } = parseApprovalRequest(request.body);
    requireBranch(ctx, store_id);
    const caller = callerOf(ctx);
    const by = await this.actorOf(caller);
    const at = new Date();
    const admin = caller.role === 'admin';
    const doc = await this.store.request(
      {
        store_id,
        day: this.clock.today(),
        status: admin ? 'approved' : 'requested',
        checks,
        reason,
        requested_by: by,
        requested_at: at,
        decided_by: admin ? by : null,
        decided_at: admin ? at : null,
        note: null,
        used: null,
      },
      await this.context(ctx, [by.user_id]),
    );
    return success(201, { message: APPROVAL_MESSAGES.requested, approval: await this.view(doc) });
  }

  /** GET /approvals: those asked on a day, or of a status (requested: waiting for an admin). */
  async approvals(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const { store_id, date, status } = parseApprovalsQuery(request.query);
    requireBranch(ctx, store_id);
    const docs =
      date !== undefined
        ? await this.store.ofDay(store_id, date, status)
        : await this.store.withStatus(store_id, status ?? 'requested');
    const names = await this.refs.userNames(docs.flatMap(namedInApproval));
    return success(200, { approvals: docs.map((doc) => approvalView(doc, names, this.clock)) });
  }

  /** GET /approvals/{id}. */
  async approval(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const doc = await this.found(request, ctx);
    return success(200, { approval: await this.view(doc) });
  }

  /** POST /approvals/{id}/approve (admin). */
  approve(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const note = parseDecision(request.body, false);
    return this.decide(request, ctx, 'approved', note);
  }

  /** POST /approvals/{id}/decline (admin), with a note. */
  decline(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const note = parseDecision(request.body, true);
    return this.decide(request, ctx, 'declined', note);
  }

  /** billing.approval.use: catalogue's control, for the caller's change of a charge. */
  async useApproval(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const use = parseUseApproval(request.body);
    requireBranch(ctx, use.store_id);
    const { approval } = await this.use(ctx, use.approval_id, use.store_id, use.checks, use.target, use.target_id);
    return success(200, { message: APPROVAL_MESSAGES.used, approval: await this.view(approval) });
  }

  /** billing.approval.release: catalogue's change was refused after all; the approval may be used again. */
  async releaseApproval(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const use = parseReleaseApproval(request.body);
    const released = await this.release(ctx, use.approval_id, use.target, use.target_id);
    return success(200, { message: APPROVAL_MESSAGES.released, approval: await this.view(released) });
  }

  /**
   * What a controlled change needs: nothing when no control found anything;
   * else 403 APPROVAL_REQUIRED (with what to ask for) unless `approvalId` names
   * an approval that covers it, which it then uses.
   */
  async pass(
    ctx: HandlerContext,
    storeId: number,
    checks: ApprovalCheck[],
    approvalId: number | null,
    target: ApprovalTarget,
    targetId: string,
  ): Promise<UsedApproval | null> {
    if (checks.length === 0) return null;
    if (approvalId === null) throw approvalRequired({ store_id: storeId, checks });
    return this.use(ctx, approvalId, storeId, checks, target, targetId);
  }

  private async use(
    ctx: HandlerContext,
    id: number,
    storeId: number,
    checks: ApprovalCheck[],
    target: ApprovalTarget,
    targetId: string,
  ): Promise<UsedApproval> {
    const caller = callerOf(ctx);
    for (;;) {
      const found = foundInBranch(ctx, await this.store.find(id), 'APPROVAL_NOT_FOUND');
      const giveBack = () => this.release(ctx, id, target, targetId).then(() => undefined);
      // Catalogue uses it within its change's compare-and-set, which a lost race runs again: used for this very
      // charge already is its own use (the same change, the approval's details being the change's values).
      const ours = found.used?.target === 'charge' && target === 'charge' && found.used.id === targetId;
      if (found.status === 'used' && ours) return { approval: found, giveBack };
      assertUsable(found, storeId, checks);
      const used = { target, id: targetId, at: new Date(), by: { sub: caller.sub, role: caller.role } };
      const after = await this.store.change(
        found,
        { status: 'used', used },
        EventSubjects.approvalUsed,
        await this.context(ctx, namedInApproval(found)),
      );
      if (after) return { approval: after, giveBack };
    }
  }

  private async release(
    ctx: HandlerContext,
    id: number,
    target: ApprovalTarget,
    targetId: string,
  ): Promise<ApprovalDoc> {
    for (;;) {
      const found = foundInBranch(ctx, await this.store.find(id), 'APPROVAL_NOT_FOUND');
      if (found.status !== 'used' || found.used?.target !== target || found.used.id !== targetId)
        throw fail('APPROVAL_NOT_USABLE', APPROVAL_MESSAGES.notUsable(found.id, found.status));
      const after = await this.store.change(
        found,
        { status: 'approved', used: null },
        EventSubjects.approvalReleased,
        await this.context(ctx, namedInApproval(found)),
      );
      if (after) return after;
    }
  }

  private async decide(
    request: ServiceRequest,
    ctx: HandlerContext,
    status: 'approved' | 'declined',
    note: string | null,
  ): Promise<ServiceReply> {
    const by = await this.actorOf(callerOf(ctx));
    for (;;) {
      const found = await this.found(request, ctx);
      if (found.status !== 'requested')
        throw fail('APPROVAL_DECIDED', APPROVAL_MESSAGES.decided(found.id, found.status));
      const after = await this.store.change(
        found,
        { status, decided_by: by, decided_at: new Date(), note },
        status === 'approved' ? EventSubjects.approvalApproved : EventSubjects.approvalDeclined,
        await this.context(ctx, [...namedInApproval(found), by.user_id]),
      );
      if (after) {
        const message = status === 'approved' ? APPROVAL_MESSAGES.approved : APPROVAL_MESSAGES.declined;
        return success(200, { message, approval: await this.view(after) });
      }
    }
  }

  private async found(request: ServiceRequest, ctx: HandlerContext): Promise<ApprovalDoc> {
    const id = pathId(request, 'approval_id', 'APPROVAL_NOT_FOUND');
    return foundInBranch(ctx, await this.store.find(id), 'APPROVAL_NOT_FOUND');
  }

  private async actorOf(caller: Caller): Promise<StaffActor> {
    const staff = await this.refs.staffOf(caller);
    return { sub: caller.sub, role: caller.role, user_id: staff?.user_id ?? null };
  }

  private async view(doc: Approval) {
    return approvalView(doc, await this.refs.userNames(namedInApproval(doc)), this.clock);
  }

  private async context(ctx: HandlerContext, named: Array<number | null>) {
    const names = await this.refs.userNames(named.filter((id): id is number => id !== null));
    return { correlationId: ctx.correlationId, view: (doc: Approval) => approvalView(doc, names, this.clock) };
  }
}

/** Runs a controlled change; a refusal of it gives its approval back (a change that may have landed keeps it). */
export async function withApproval<T>(used: UsedApproval | null, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (err) {
    // A refusal, or a write refused as too late (503 SERVICE_BUSY): the change did not land.
    const refused = err instanceof ServiceError && (err.status < 500 || err.code === 'SERVICE_BUSY');
    if (used && refused) await used.giveBack().catch(() => undefined);
    throw err;
  }
}
