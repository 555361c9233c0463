import type { NatsConnection } from 'nats';
import { BillingSubjects, type ServiceReply } from '@clinic/contracts';
import { callService, toCents, type HandlerContext } from '@clinic/service-kit';
import type { AppointmentMoney } from './domain/appointments';

/** A read of appointments shows their money without waiting long for it: past this, `payment` is null. */
const BALANCES_TIMEOUT_MS = 1_000;

/**
 * Sessions' question to billing, with its caller's token: what do these
 * appointments hold? Billing owns their money (ledger, drawer); an
 * appointment read shows it beside what sessions holds.
 */
export class BillingClient {
  constructor(private readonly nc: NatsConnection) {}

  /** By appointment id; null when billing cannot be asked (the appointments are still answered). */
  async balances(ids: number[], ctx: HandlerContext): Promise<Map<number, AppointmentMoney> | null> {
    if (ids.length === 0) return new Map();
    let reply: ServiceReply;
    try {
      reply = await callService(
        this.nc,
        BillingSubjects.appointmentBalances,
        { body: { appointment_ids: ids } },
        { token: ctx.token, correlationId: ctx.correlationId, timeoutMs: BALANCES_TIMEOUT_MS },
      );
    } catch (err) {
      ctx.log.warn({ err: (err as Error).message }, 'appointment balances not read; shown without');
      return null;
    }
    const body = reply.body as {
      success?: boolean;
      balances?: Record<string, { paid_amount: number; refunded_amount: number }>;
    };
    if (reply.status !== 200 || !body.success || typeof body.balances !== 'object' || body.balances === null) {
      ctx.log.warn({ status: reply.status }, 'appointment balances refused; shown without');
      return null;
    }
    const money = new Map<number, AppointmentMoney>();
    for (const id of ids) {
      const found = body.balances[String(id)];
      money.set(id, {
        paid_cents: toCents(Number(found?.paid_amount ?? 0)),
        refunded_cents: toCents(Number(found?.refunded_amount ?? 0)),
      });
    }
    return money;
  }
}
