/**
 * The catalogue's control: with APPROVE_CATALOGUE_CHANGES=true a
 * cashier's change of a charge needs an admin's approval. Approvals are
 * billing's: the catalogue asks billing to use one (and to give it back when
 * the change is refused after all), with its caller's token.
 */
import type { NatsConnection } from 'nats';
import { BillingSubjects, type ApprovalCheck, type ServiceReply } from '@clinic/contracts';
import { approvalRequired, askAsCaller, fail, refusalOf, type HandlerContext } from '@clinic/service-kit';

/** What a change of a charge asks approval for. */
export interface ChargeChange {
  store_id: number;
  details: Record<string, unknown>;
  /** What the approval's use is recorded on: the charge's id, or `name:<name>` for a new one. */
  target_id: string;
}

export class ApprovalsClient {
  constructor(
    private readonly nc: NatsConnection,
    /** APPROVE_CATALOGUE_CHANGES. */
    private readonly enabled: boolean,
  ) {}

  /** Whether the caller's changes need approval. */
  controls(ctx: HandlerContext): boolean {
    return this.enabled && ctx.caller?.role === 'cashier';
  }

  /**
   * 403 APPROVAL_REQUIRED without `approvalId`; else uses it (409 when it does
   * not cover the change) and answers it as billing shows it, for the history.
   */
  async use(change: ChargeChange, approvalId: number | null, ctx: HandlerContext): Promise<Record<string, unknown>> {
    const checks: ApprovalCheck[] = [{ rule: 'catalogue_change', details: change.details }];
    if (approvalId === null) throw approvalRequired({ store_id: change.store_id, checks });
    const body = {
      approval_id: approvalId,
      store_id: change.store_id,
      checks,
      target: 'charge',
      target_id: change.target_id,
    };
    const reply = await this.ask(BillingSubjects.useApproval, body, ctx);
    return (reply.body as { approval?: Record<string, unknown> }).approval ?? { id: approvalId };
  }

  /** Gives the approval back: the change it was used for was refused. */
  async release(change: ChargeChange, approvalId: number, ctx: HandlerContext): Promise<void> {
    const body = { approval_id: approvalId, target: 'charge', target_id: change.target_id };
    await this.ask(BillingSubjects.releaseApproval, body, ctx).catch((err: unknown) =>
      ctx.log.warn({ err, approval_id: approvalId }, 'approval not given back'),
    );
  }

  private async ask(subject: string, body: Record<string, unknown>, ctx: HandlerContext): Promise<ServiceReply> {
    const reply = await askAsCaller(this.nc, subject, { body }, ctx, () => fail('APPROVALS_UNAVAILABLE'));
    if (!reply.body.success) throw refusalOf(reply.status, reply.body);
    return reply;
  }
}
