/** Hospital-charge operations: the spec's steps in order, over the storage layer. */
import {
  CATALOGUE_MESSAGES,
  failure,
  success,
  type Caller,
  type ChargeCheckReply,
  type ServiceReply,
  type ServiceRequest,
} from '@clinic/contracts';
import { EncodedReply, fromCents, notFound, pathId, type ClinicClock } from '@clinic/service-kit';
import { parseChargeCheck, parseChargeUpdate, parseListQuery, parseNewCharge, sameFields } from './rules';
import { chargeView, type ChargeStore } from './storage';

export class ChargeOperations {
  constructor(
    private readonly store: ChargeStore,
    private readonly clock: ClinicClock,
  ) {}

  async create(request: ServiceRequest, caller: Caller, correlationId: string): Promise<ServiceReply> {
    const input = parseNewCharge(request.body);
    const doc = await this.store.writes.create(input, { actor: caller, correlationId });
    return success(201, { message: CATALOGUE_MESSAGES.created, charge_id: doc.id });
  }

  list(request: ServiceRequest): Promise<EncodedReply> {
    return this.store.queries.list(
      parseListQuery(request.query),
      (charges) => new EncodedReply(success(200, { charges, count: charges.length })),
    );
  }

  async get(request: ServiceRequest): Promise<ServiceReply> {
    const doc = await this.store.queries.findLive(pathId(request, 'charge_id', CATALOGUE_MESSAGES.notFound));
    if (!doc) throw notFound(CATALOGUE_MESSAGES.notFound);
    return success(200, { charge: chargeView(doc, this.clock) });
  }

  async update(request: ServiceRequest, caller: Caller, correlationId: string): Promise<ServiceReply> {
    const id = pathId(request, 'charge_id', CATALOGUE_MESSAGES.notFound);
    const fields = parseChargeUpdate(request.body);
    // A charge that does not exist (or is deleted) is not found; one that would not change is not written.
    const outcome = await this.store.writes.update(id, { actor: caller, correlationId }, (existing) =>
      sameFields(existing, fields) ? null : fields,
    );
    if (outcome === 'unchanged') return failure(200, CATALOGUE_MESSAGES.noChanges);
    return success(200, { message: CATALOGUE_MESSAGES.updated });
  }

  async delete(request: ServiceRequest, caller: Caller, correlationId: string): Promise<ServiceReply> {
    const id = pathId(request, 'charge_id', CATALOGUE_MESSAGES.notFound);
    await this.store.writes.softDelete(id, { actor: caller, correlationId });
    return success(200, { message: CATALOGUE_MESSAGES.deleted });
  }

  /** Every change of a charge, oldest first; a deleted charge's too. */
  async history(request: ServiceRequest): Promise<ServiceReply> {
    const id = pathId(request, 'charge_id', CATALOGUE_MESSAGES.notFound);
    if (!(await this.store.queries.exists(id))) throw notFound(CATALOGUE_MESSAGES.notFound);
    return success(200, { charge_id: id, history: await this.store.history.of(id) });
  }

  /** For billing: which of these charge ids cannot be billed in this store, and the current amount of the others. */
  async check(request: ServiceRequest): Promise<ServiceReply> {
    const { store_id, charge_ids } = parseChargeCheck(request.body);
    const { invalid, amounts } = await this.store.queries.billable(store_id, charge_ids);
    const reply: Omit<ChargeCheckReply, 'success'> = {
      invalid_ids: invalid,
      amounts: Object.fromEntries([...amounts].map(([id, cents]) => [String(id), fromCents(cents)])),
    };
    return success(200, reply);
  }
}
