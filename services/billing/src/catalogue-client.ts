import type { NatsConnection } from 'nats';
import { CatalogueSubjects, type ChargeCheckReply } from '@clinic/contracts';
import { askAsCaller, fail, refusalOf, type HandlerContext } from '@clinic/service-kit';

/**
 * Billing's question to the catalogue, asked with its caller's token: which
 * of these charge ids cannot be billed in this store, and what do the others cost now?
 */
export class CatalogueClient {
  constructor(private readonly nc: NatsConnection) {}

  async check(
    branchId: number,
    chargeIds: number[],
    ctx: HandlerContext,
  ): Promise<{ invalid: number[]; amounts: Map<number, number> }> {
    const reply = await askAsCaller(
      this.nc,
      CatalogueSubjects.check,
      { body: { store_id: branchId, charge_ids: [...new Set(chargeIds)] } },
      ctx,
      () => fail('CATALOGUE_UNAVAILABLE'),
    );
    // The caller's token expired between billing's check and the catalogue's, or does not reach the branch
    // (billing refuses that first; the catalogue enforces it too, for whoever asks).
    if ((reply.status === 401 || reply.status === 403) && !reply.body.success)
      throw refusalOf(reply.status, reply.body);
    const body = reply.body as Partial<ChargeCheckReply> & { success: boolean };
    if (reply.status !== 200 || !body.success || !Array.isArray(body.invalid_ids) || typeof body.amounts !== 'object') {
      throw new Error(`Unexpected charge check reply: ${JSON.stringify(reply)}`);
    }
    return {
      invalid: body.invalid_ids,
      amounts: new Map(Object.entries(body.amounts ?? {}).map(([id, amount]) => [Number(id), amount])),
    };
  }
}
