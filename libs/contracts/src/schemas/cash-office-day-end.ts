/** What the cash office adds to the day-end: tenders from the ledger, the day's shifts, its approvals. */
import { PAYMENT_METHODS } from '../fields/billing';
import { CASH_OUTCOMES } from '../fields/billing-money';
import { APPROVAL_RULES, APPROVAL_STATUSES, SHIFT_STATUSES } from '../fields/cash-office';
import { approvalCheckSchema, staffActorSchema } from './approvals';
import { actorSchema, idSchema, objectSchema, timestampSchema, type JsonSchema } from './common';
import { perMethod, userProperties } from './shifts';

const money: JsonSchema = { type: 'number' };
const nullableMoney: JsonSchema = { type: 'number', nullable: true };

/** The day-end's money per tender from the ledger: what was actually taken and given back. */
export const dayEndTendersSchema: JsonSchema = {
  ...objectSchema(
    Object.fromEntries(
      PAYMENT_METHODS.map((m) => [
        m,
        objectSchema({
          taken: money,
          given_back: { ...money, description: 'refunds and reversals' },
          paid_out: { ...money, description: "doctors' payouts (less those given back) and petty cash" },
          dropped: { ...money, description: 'cash put in the safe from the drawers' },
          net: { ...money, description: 'taken less given back and paid out' },
        }),
      ]),
    ),
  ),
  description: 'per tender, from the ledger of the day (what moved, whatever the bills say); present once money moved',
};

export const dayEndShiftSchema: JsonSchema = objectSchema({
  id: idSchema,
  ...userProperties,
  status: { type: 'string', enum: [...SHIFT_STATUSES] },
  opened_at: { ...timestampSchema, nullable: false },
  closed_at: timestampSchema,
  float: money,
  taken: perMethod,
  given_back: perMethod,
  paid_to_doctors: money,
  dropped: money,
  paid_out: money,
  expected: money,
  counted: nullableMoney,
  difference: nullableMoney,
  outcome: { type: 'string', enum: [...CASH_OUTCOMES] },
  handed_to: { ...idSchema, nullable: true },
  signed_off_by: { ...actorSchema, nullable: true },
});

export const dayEndExceptionSchema: JsonSchema = objectSchema({
  approval_id: idSchema,
  status: { type: 'string', enum: [...APPROVAL_STATUSES] },
  rules: { type: 'array', items: { type: 'string', enum: [...APPROVAL_RULES] } },
  checks: { type: 'array', items: approvalCheckSchema },
  reason: { type: 'string' },
  requested_by: staffActorSchema,
  requested_at: { ...timestampSchema, nullable: false },
  approved_by: { ...staffActorSchema, nullable: true },
  approved_at: timestampSchema,
  used_on: { type: 'string', nullable: true, description: 'what it was used on: `bill 12`, `charge 3`, `refund <id>`' },
});

/** What the cash office adds to GET /lab_bills/day_end (each absent when it holds nothing). */
export const cashOfficeDayEndProperties: Record<string, JsonSchema> = {
  tenders: dayEndTendersSchema,
  shifts: {
    type: 'array',
    items: dayEndShiftSchema,
    description: 'the shifts opened at the branch that day; absent when none was',
  },
  exceptions: {
    type: 'array',
    items: dayEndExceptionSchema,
    description: 'the approvals asked for at the branch that day, whatever became of them; absent when none was',
  },
};
