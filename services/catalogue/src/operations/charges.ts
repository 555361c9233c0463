/** Hospital-charge operations: the spec's steps in order, over the storage layer. */
import {
  CATALOGUE_MESSAGES,
  failure,
  success,
  type ChargeCheckReply,
  type ServiceReply,
  type ServiceRequest,
} from '@clinic/contracts';
import {
  callerOf,
  EncodedReply,
  foundInBranch,
  fromCents,
  pageFields,
  pageOfList,
  parsePage,
  pathId,
  requireBranch,
  requireCurrent,
  ServiceError,
  taggedReply,
  withNewTag,
  type HandlerContext,
} from '@clinic/service-kit';
import type { ApprovalsClient, ChargeChange } from '../approvals-client';
import {
  approvalIdOf,
  parseChargeCheck,
  parseChargeUpdate,
  parseListQuery,
  parseNewCharge,
  sameFields,
  type ChargeFields,
} from '../domain/rules';
import type { ChargeDoc } from '../domain/charge';
import type { ChangeContext, ChargeStorage } from '../storage';

/** What the catalogue's control asks approval for: the change as the body gives it. */
function changeDetails(action: 'create' | 'update' | 'delete', chargeId: number | null, fields?: ChargeFields) {
  if (!fields) return { action, charge_id: chargeId };
  const { amount_cents, ...rest } = fields;
  return { action, charge_id: chargeId, ...rest, amount: fromCents(amount_cents) };
}

/** A change refused, or refused as too late to write (503 SERVICE_BUSY): it did not land. */
const refused = (err: unknown) => err instanceof ServiceError && (err.status < 500 || err.code === 'SERVICE_BUSY');

export class ChargeOperations {
  constructor(
    private readonly storage: ChargeStorage,
    private readonly approvals: ApprovalsClient,
  ) {}

  async create(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const input = parseNewCharge(request.body);
    requireBranch(ctx, input.store_id);
    const context: ChangeContext = this.changeContext(ctx);
    const { store_id, ...fields } = input;
    const change = { store_id, details: changeDetails('create', null, fields), target_id: `name:${input.charge_name}` };
    const doc = await this.controlled(ctx, request.body, context, change, () =>
      this.storage.writes.create(input, context),
    );
    return success(201, { message: CATALOGUE_MESSAGES.created, charge_id: doc.id });
  }

  list(request: ServiceRequest, ctx: HandlerContext): Promise<EncodedReply> {
    const filter = parseListQuery(request.query);
    requireBranch(ctx, filter.store_id);
    return this.storage.queries.list(
      filter,
      (all) => {
        if (!filter.page) return new EncodedReply(success(200, { charges: all, count: all.length }));
        const { items: charges, fields } = pageOfList(all, filter.page);
        return new EncodedReply(success(200, { charges, ...fields }));
      },
      ctx.share,
    );
  }

  async get(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'charge_id', 'CHARGE_NOT_FOUND');
    // Kept per version with its tag: a hot read neither reads the database nor digests the body again.
    const found = await this.storage.queries.one(id, (charge) => taggedReply(success(200, { charge })), ctx.share);
    return foundInBranch(ctx, found, 'CHARGE_NOT_FOUND').value;
  }

  /** A live charge as its read answers it: the body its ETag is the digest of. */
  private representation(doc: ChargeDoc): ServiceReply {
    return success(200, { charge: this.storage.queries.view(doc) });
  }

  async update(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'charge_id', 'CHARGE_NOT_FOUND');
    const fields = parseChargeUpdate(request.body);
    // A charge that does not exist (or is deleted, or of another branch) is not found; one that would not change
    // is not written.
    const context = this.changeContext(ctx);
    const outcome = await this.controlledChange(ctx, request.body, context, id, 'update', fields, (approve) =>
      this.storage.writes.update(id, context, async (existing) => {
        if (sameFields(await this.changeable(ctx, existing), fields)) return null;
        await approve(existing);
        return fields;
      }),
    );
    if (outcome === 'unchanged') return failure(200, CATALOGUE_MESSAGES.noChanges, 'CHARGE_UNCHANGED');
    return withNewTag(success(200, { message: CATALOGUE_MESSAGES.updated }), this.representation(outcome));
  }

  async delete(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'charge_id', 'CHARGE_NOT_FOUND');
    const context = this.changeContext(ctx);
    await this.controlledChange(ctx, request.body, context, id, 'delete', undefined, (approve) =>
      this.storage.writes.softDelete(id, context, async (existing) => {
        await approve(await this.changeable(ctx, existing));
      }),
    );
    return success(200, { message: CATALOGUE_MESSAGES.deleted });
  }

  /** A page of the changes of a charge, oldest first; a deleted charge's too. */
  async history(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'charge_id', 'CHARGE_NOT_FOUND');
    const page = parsePage(request.query);
    foundInBranch(ctx, await this.storage.queries.branchOf(id), 'CHARGE_NOT_FOUND');
    const { entries, total } = await this.storage.history.page(id, page);
    return success(200, { charge_id: id, history: entries, ...pageFields(entries.length, total, page) });
  }

  /** For billing: which of these charge ids cannot be billed in this branch, and the current amount of the others. */
  async check(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const { store_id, charge_ids } = parseChargeCheck(request.body);
    requireBranch(ctx, store_id);
    const { invalid, amounts } = await this.storage.queries.billable(store_id, charge_ids);
    const reply: Omit<ChargeCheckReply, 'success'> = {
      invalid_ids: invalid,
      amounts: Object.fromEntries([...amounts].map(([id, cents]) => [String(id), fromCents(cents)])),
    };
    return success(200, reply);
  }

  private changeContext(ctx: HandlerContext): ChangeContext {
    return { actor: callerOf(ctx), correlationId: ctx.correlationId };
  }

  /**
   * A change the catalogue's control covers (a cashier's, with
   * APPROVE_CATALOGUE_CHANGES): it uses the body's approval first (recorded
   * in the change's history entry) and gives it back when the change is refused.
   */
  private async controlled<T>(
    ctx: HandlerContext,
    body: unknown,
    context: ChangeContext,
    change: ChargeChange,
    write: () => Promise<T>,
  ): Promise<T> {
    const approvalId = approvalIdOf(body);
    if (!this.approvals.controls(ctx)) return write();
    context.details = { approval: await this.approvals.use(change, approvalId, ctx) };
    try {
      return await write();
    } catch (err) {
      if (refused(err)) await this.approvals.release(change, approvalId!, ctx);
      throw err;
    }
  }

  /** A controlled change of a charge found by id: its approval is used once the charge is found (404 first). */
  private async controlledChange<T>(
    ctx: HandlerContext,
    body: unknown,
    context: ChangeContext,
    id: number,
    action: 'update' | 'delete',
    fields: ChargeFields | undefined,
    write: (approve: (existing: ChargeDoc) => Promise<void>) => Promise<T>,
  ): Promise<T> {
    const approvalId = approvalIdOf(body);
    if (!this.approvals.controls(ctx)) return write(async () => undefined);
    let used: ChargeChange | null = null;
    try {
      return await write(async (existing) => {
        const change = {
          store_id: existing.store_id,
          details: changeDetails(action, id, fields),
          target_id: String(id),
        };
        context.details = { approval: await this.approvals.use(change, approvalId, ctx) };
        used = change;
      });
    } catch (err) {
      if (used && refused(err)) await this.approvals.release(used, approvalId!, ctx);
      throw err;
    }
  }

  /** The charge a change found, when the caller reaches its branch (404) and, with If-Match, has read it as it is (412). */
  private async changeable(ctx: HandlerContext, existing: ChargeDoc): Promise<ChargeDoc> {
    foundInBranch(ctx, existing, 'CHARGE_NOT_FOUND');
    await requireCurrent(ctx.ifMatch, () => this.representation(existing).body);
    return existing;
  }
}
