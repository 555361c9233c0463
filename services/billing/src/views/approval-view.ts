/** How the API, the events and the day-end show an approval. */
import type { ClinicClock } from '@clinic/service-kit';
import type { Approval, StaffActor } from '../domain/approvals';
import type { Names } from './shift-view';

const actorView = (actor: StaffActor, names: Names) => ({
  sub: actor.sub,
  role: actor.role,
  user_id: actor.user_id,
  user_name: actor.user_id === null ? null : (names.get(actor.user_id) ?? null),
});

export function approvalView(approval: Approval, names: Names, clock: ClinicClock) {
  return {
    id: approval.id,
    store_id: approval.store_id,
    status: approval.status,
    checks: approval.checks,
    reason: approval.reason,
    requested_by: actorView(approval.requested_by, names),
    requested_at: clock.timestamp(approval.requested_at),
    decided_by: approval.decided_by && actorView(approval.decided_by, names),
    decided_at: clock.timestamp(approval.decided_at),
    note: approval.note,
    used: approval.used && {
      target: approval.used.target,
      id: approval.used.id,
      at: clock.timestamp(approval.used.at),
      by: approval.used.by,
    },
  };
}

/** An approval as the history of what it let through records it: who asked, who approved, when, why. */
export function approvalRecord(approval: Approval, clock: ClinicClock) {
  return {
    id: approval.id,
    checks: approval.checks,
    reason: approval.reason,
    requested_by: approval.requested_by,
    requested_at: clock.timestamp(approval.requested_at),
    approved_by: approval.decided_by,
    approved_at: clock.timestamp(approval.decided_at),
  };
}

/** The staff users an approval's view names. */
export const namedInApproval = (approval: Approval): number[] =>
  [approval.requested_by.user_id, approval.decided_by?.user_id ?? null].filter((id): id is number => id !== null);
