/** Hospital-charge operations: the spec's steps in order, over the repository. */
import { failure, success, type Caller, type ServiceReply, type ServiceRequest } from '@clinic/contracts';
import { EncodedReply, notFound, pathId, type RecordLocks } from '@clinic/service-kit';
import type { ChargeRepository } from './repository';
import {
  MESSAGES,
  parseChargeCheck,
  parseChargeUpdate,
  parseListQuery,
  parseNewCharge,
  sameFields,
} from './rules';

export class ChargeOperations {
  constructor(
    private readonly repo: ChargeRepository,
    private readonly locks: RecordLocks,
  ) {}

  async create(request: ServiceRequest, caller: Caller, correlationId: string): Promise<ServiceReply> {
    const input = parseNewCharge(request.body);
    const doc = await this.repo.create(input, caller, correlationId);
    return success(201, { message: MESSAGES.created, charge_id: doc.id });
  }

  list(request: ServiceRequest): Promise<EncodedReply> {
    return this.repo.list(parseListQuery(request.query), (charges) => new EncodedReply(success(200, { charges, count: charges.length })));
  }

  async get(request: ServiceRequest): Promise<ServiceReply> {
    const doc = await this.repo.findLive(pathId(request, 'charge_id', MESSAGES.notFound));
    if (!doc) throw notFound(MESSAGES.notFound);
    return success(200, { charge: this.repo.view(doc) });
  }

  async update(request: ServiceRequest, caller: Caller, correlationId: string): Promise<ServiceReply> {
    const id = pathId(request, 'charge_id', MESSAGES.notFound);
    const fields = parseChargeUpdate(request.body);
    return this.locks.run('charge', id, async () => {
      const existing = await this.repo.findLive(id);
      if (!existing) throw notFound(MESSAGES.notFound);
      if (sameFields(existing, fields)) return failure(200, MESSAGES.noChanges);
      await this.repo.update(existing, fields, caller, correlationId);
      return success(200, { message: MESSAGES.updated });
    });
  }

  async delete(request: ServiceRequest, caller: Caller, correlationId: string): Promise<ServiceReply> {
    const id = pathId(request, 'charge_id', MESSAGES.notFound);
    await this.locks.run('charge', id, async () => {
      const existing = await this.repo.findLive(id);
      if (!existing) throw notFound(MESSAGES.notFound);
      await this.repo.softDelete(existing, caller, correlationId);
    });
    return success(200, { message: MESSAGES.deleted });
  }

  /** Every change of a charge, oldest first; a deleted charge's too. */
  async history(request: ServiceRequest): Promise<ServiceReply> {
    const id = pathId(request, 'charge_id', MESSAGES.notFound);
    if (!(await this.repo.exists(id))) throw notFound(MESSAGES.notFound);
    return success(200, { charge_id: id, history: await this.repo.history.of(id) });
  }

  /** For billing: which of these charge ids cannot be billed in this store. */
  async check(request: ServiceRequest): Promise<ServiceReply> {
    const { store_id, charge_ids } = parseChargeCheck(request.body);
    return success(200, { invalid_ids: await this.repo.unbillable(store_id, charge_ids) });
  }
}
