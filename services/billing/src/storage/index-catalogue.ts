/**
 * Billing's collections, their indexes and the queries each answers: the
 * storage creates these indexes, and `npm run docs` writes docs/indexes.md
 * from this list (tests/e2e/indexes.test.ts checks a started stack holds
 * exactly them).
 */
import { indexRef, auditTrailIndex, refCollectionName, type IndexedCollection } from '@clinic/service-kit/storage';
import { APPROVAL_INDEX_DESCRIPTIONS, APPROVAL_INDEXES, APPROVALS } from './approvals';
import { SHIFT_INDEX_DESCRIPTIONS, SHIFT_INDEXES, SHIFTS } from './shifts';
import { BILL_DAYS } from './day-totals';
import { DAY_CLOSINGS } from './day-closings';
import { BILL_HISTORY, BILLS } from './documents';
import {
  BILL_DAYS_INDEX_DESCRIPTIONS,
  BILL_INDEX_DESCRIPTIONS,
  BILL_INDEXES as I,
  LEDGER_INDEX_DESCRIPTIONS,
} from './indexes';
import { BILL_LEDGER } from './ledger-documents';
import { CREDIT_NOTE_INDEXES, CREDIT_NOTES } from './credit-note-numbers';
import { APPOINTMENT_ACCOUNTS, APPOINTMENT_HISTORY } from './appointment-accounts';
import { SETTLEMENT_HISTORY, SETTLEMENTS } from './settlement-documents';

export const BILLING_INDEX_CATALOGUE: IndexedCollection[] = [
  {
    collection: BILLS,
    indexes: BILL_INDEX_DESCRIPTIONS,
    queries: [
      {
        query:
          'list page: `{store_id, is_deleted:false, bill_date?|range?, payment_method?, payment_status?}`, newest first (`created_at`, `id`), skip, limit',
        index: `${indexRef(I.byDay)} for a \`date\` or a range of 62 days or less (the range sent as \`bill_date:{$in:[its dates]}\`, read date by date in index order and merged: MongoDB's merge of sorted index scans, patch 0015 on the embedded server), else ${indexRef(I.list)}`,
      },
      {
        query:
          "list page of one patient or one cashier: the same plus `patient_id` or `billed_by` (both: the patient's index), page and count (`countDocuments`: the per-day totals do not count by person)",
        index: `${indexRef(I.byPatient)}, ${indexRef(I.byBiller)}`,
      },
      {
        query: 'search: the same plus `search_text` holding a literal substring, page and count',
        index: `${indexRef(I.list)} (on the embedded server also its substring table)`,
      },
      {
        query:
          'per-day counts and sums: `[$match {store_id, is_deleted:false, bill_date:{$in}}, $group by date, method, status]`; one day (the read after a write): `bill_date` equal, grouped by method and status',
        index: `${indexRef(I.byDay)} (covers every field)`,
      },
      {
        query: 'highest number of a date: `{bill_date}` by `bill_seq` descending, limit 1',
        index: indexRef(I.dateSeq),
      },
      { query: 'the bill of an idempotency key: `{idempotency_key}`', index: indexRef(I.idempotencyKey) },
      { query: 'a bill number is used once (no query)', index: indexRef(I.number) },
      { query: 'one bill, its update and cancellation: `{_id, ...}`', index: '`_id`' },
      { query: "day-end: a branch's cancelled bills of a date, newest first", index: indexRef(I.byDay) },
      {
        query:
          "day-end: a date's live bills per cashier, `[$match {store_id, is_deleted:false, bill_date}, $group by billed_by, method, status]`; what its Pending ones still owe, `[$match {..., payment_status:'Pending'}, $group sums of grand_total_cents and paid_cents]`",
        index: `${indexRef(I.dayEnd)} (covers every field)`,
      },
      {
        query:
          'a page of an export: `{store_id, is_deleted:false (cancelled bills asked for: true, or $in false and true), bill_date, id:{$gt}, created_at:{$lte}, payment_method?, payment_status?}` by `id`, limit, one date after another',
        index: `${indexRef(I.byDay)} (with a search: ${indexRef(I.list)})`,
      },
      {
        query:
          'the next date of an export with a bill: `{store_id, is_deleted (as its pages), bill_date:{$gt|$gte, $lte}, created_at:{$lte}}` by `bill_date`, limit 1',
        index: indexRef(I.byDay),
      },
    ],
  },
  {
    collection: BILL_DAYS,
    indexes: BILL_DAYS_INDEX_DESCRIPTIONS,
    queries: [
      { query: 'the days of a range and their tokens: `{store_id, bill_date?|range?}`', index: indexRef(I.days) },
      {
        query: 'the whole months of a range and their tokens: `{month_of_store, month:{$gte,$lte}}`',
        index: indexRef(I.months),
      },
    ],
  },
  {
    collection: BILL_LEDGER,
    indexes: LEDGER_INDEX_DESCRIPTIONS,
    queries: [
      {
        query:
          "the drawer (day-end, a day's closing): `[$match {store_id, day}, $group by collector, method, kind, sum of amount_cents]`",
        index: `${indexRef(I.ledgerByDay)} (covers every field)`,
      },
      {
        query: "the printed day-end's refunds and reversals: `{store_id, day, kind:{$in}}`",
        index: indexRef(I.ledgerByDay),
      },
      {
        query:
          "the day-end's channeling money: `[$match {store_id, day}, $group by kind, sums of doctor_cents and hospital_cents]` (a bill's entries have neither)",
        index: indexRef(I.ledgerByDay),
      },
      {
        query:
          'a page of a ledger export: `{store_id, day, _id:{$gt}}` by `_id`, limit, one day after another; the next day with an entry: `{store_id, day:{$gt|$gte, $lte}}` by `day`, limit 1',
        index: indexRef(I.ledgerExport),
      },
      {
        query:
          "a shift's drawer (its figures, its close, the cash left for a refund): `[$match {shift_id}, $group by kind, method, sum of amount_cents]`",
        index: `${indexRef(I.ledgerByShift)} (covers every field)`,
      },
      { query: "which of a shift's held entries are stored: `{_id:{$in}}`", index: '`_id`' },
    ],
  },
  {
    collection: SHIFTS,
    indexes: SHIFT_INDEX_DESCRIPTIONS,
    queries: [
      { query: 'a shift, its holds and writes: `{_id, version?}`', index: '`_id`' },
      {
        query: "a cashier's live shift at a branch, and one live shift per cashier and branch: `{open_key}`",
        index: indexRef(SHIFT_INDEXES.openKey),
      },
      { query: "a branch's shifts of a day: `{store_id, day}`", index: indexRef(SHIFT_INDEXES.byDay) },
      {
        query: "a day's close: the branch's live shifts opened that day or before, `{store_id, live:true, day:{$lte}}`",
        index: indexRef(SHIFT_INDEXES.live),
      },
    ],
  },
  {
    collection: CREDIT_NOTES,
    indexes: [
      { key: { number: 1 }, name: CREDIT_NOTE_INDEXES.number, unique: true },
      { key: { day: 1, seq: -1 }, name: CREDIT_NOTE_INDEXES.daySeq },
    ],
    queries: [
      { query: "a note's number, given once: `{_id}` (the note's key)", index: '`_id`' },
      {
        query: "a day's highest note: `{day}` by `seq` descending, limit 1",
        index: indexRef(CREDIT_NOTE_INDEXES.daySeq),
      },
      { query: 'a number is used once (no query)', index: indexRef(CREDIT_NOTE_INDEXES.number) },
    ],
  },
  {
    collection: APPROVALS,
    indexes: APPROVAL_INDEX_DESCRIPTIONS,
    queries: [
      { query: 'an approval, its decision and use: `{_id, version?}`', index: '`_id`' },
      {
        query: "a branch's approvals of a day (the list, the day-end's exceptions): `{store_id, day}`",
        index: indexRef(APPROVAL_INDEXES.byDay),
      },
      {
        query: "a branch's approvals waiting for an admin: `{store_id, status}`",
        index: indexRef(APPROVAL_INDEXES.byStatus),
      },
    ],
  },
  {
    collection: refCollectionName('user'),
    indexes: [],
    queries: [
      {
        query:
          "staff users by their identity provider's subject: `{subject:{$exists:true}, deleted:false}`, a scan of the users (a clinic's staff), kept in each replica's cache until a user record is applied",
        index: 'none (scan)',
      },
      { query: 'users by id (names, known staff): `{_id:{$in}}`', index: '`_id`' },
    ],
  },
  {
    collection: APPOINTMENT_ACCOUNTS,
    indexes: [],
    queries: [
      { query: "an appointment's account, its payments and refunds: `{_id, ...}`", index: '`_id`' },
      { query: "the balances sessions asks for, and a settlement's accounts: `{_id:{$in}}`", index: '`_id`' },
    ],
  },
  {
    collection: SETTLEMENTS,
    indexes: [],
    queries: [{ query: "a session's settlement, its marks and writes: `{_id, version?}`", index: '`_id`' }],
  },
  ...[APPOINTMENT_HISTORY, SETTLEMENT_HISTORY].map((collection) => ({
    collection,
    indexes: [auditTrailIndex(collection)],
    queries: [
      {
        query:
          "an appointment's or a session's history: `{entity_id}` by `at`; its slip's or settlement sheet's prints: `{entity_id, action:'printed'}`",
        index: indexRef(auditTrailIndex(collection).name),
      },
    ],
  })),
  {
    collection: BILL_HISTORY,
    indexes: [auditTrailIndex(BILL_HISTORY)],
    queries: [
      {
        query:
          "a page of a bill's history, oldest first: `{entity_id}` by `at`, skip, limit, and its count; the latest cancellation of some bills: `{entity_id:{$in}, action}`; a bill's prints: `{entity_id, action:'printed'}`",
        index: indexRef(auditTrailIndex(BILL_HISTORY).name),
      },
    ],
  },
  {
    collection: DAY_CLOSINGS,
    indexes: [],
    queries: [{ query: "a day's closing, and the days a write must find open: `{_id:{$in}}`", index: '`_id`' }],
  },
];
