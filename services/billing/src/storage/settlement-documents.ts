/**
 * How a session's settlement is stored: one document per session
 * settled at least once, keyed by the session's id, holding the settlement
 * in force and the ones reversed (settlements.ts writes them).
 */
import type { Caller } from '@clinic/contracts';
import type { HoldOwner } from '../domain/shift';

export const SETTLEMENTS = 'settlements';
/** Every settlement and reversal of a session, never changed. */
export const SETTLEMENT_HISTORY = 'settlement_history';

export interface SettlementContext {
  actor: Caller;
  correlationId: string;
}

export const settlementKey = (sessionId: number) => String(sessionId);
/** The session's settlement document, which holds a payout once its write landed (a shift's hold on it). */
export const settlementOwner = (sessionId: number): HoldOwner => ({
  collection: SETTLEMENTS,
  key: settlementKey(sessionId),
  paths: ['current.id', 'reversed.id'],
});
