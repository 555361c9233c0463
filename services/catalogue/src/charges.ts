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
  taggedReply,
  withNewTag,
  type HandlerContext,
} from '@clinic/service-kit';
import { parseChargeCheck, parseChargeUpdate, parseListQuery, parseNewCharge, sameFields } from './rules';
import type { ChargeDoc, ChargeStorage } from './storage';

export class ChargeOperations {
  constructor(private readonly storage: ChargeStorage) {}

  async create(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const input = parseNewCharge(request.body);
    requireBranch(ctx, input.store_id);
    const doc = await this.storage.writes.create(input, { actor: callerOf(ctx), correlationId: ctx.correlationId });
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
    const outcome = await this.storage.writes.update(id, this.changeContext(ctx), async (existing) =>
      sameFields(await this.changeable(ctx, existing), fields) ? null : fields,
    );
    if (outcome === 'unchanged') return failure(200, CATALOGUE_MESSAGES.noChanges, 'CHARGE_UNCHANGED');
    return withNewTag(success(200, { message: CATALOGUE_MESSAGES.updated }), this.representation(outcome));
  }

  async delete(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'charge_id', 'CHARGE_NOT_FOUND');
    await this.storage.writes.softDelete(id, this.changeContext(ctx), async (existing) => {
      await this.changeable(ctx, existing);
    });
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

  private changeContext(ctx: HandlerContext) {
    return { actor: callerOf(ctx), correlationId: ctx.correlationId };
  }

  /** The charge a change found, when the caller reaches its branch (404) and, with If-Match, has read it as it is (412). */
  private async changeable(ctx: HandlerContext, existing: ChargeDoc): Promise<ChargeDoc> {
    foundInBranch(ctx, existing, 'CHARGE_NOT_FOUND');
    await requireCurrent(ctx.ifMatch, () => this.representation(existing).body);
    return existing;
  }
}
