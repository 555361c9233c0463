/** The sessions' collections, their indexes and the queries each answers (`npm run docs`: docs/indexes.md). */
import { indexRef, refCollectionName, type IndexedCollection } from '@clinic/service-kit/storage';
import { BOOKING_KEYS } from './booking-keys';
import { RUNS, SESSIONS } from './documents';
import {
  APPOINTMENT_INDEX_DESCRIPTIONS,
  HOLIDAY_INDEX_DESCRIPTIONS,
  HOLIDAYS_BY_DATE,
  LEAVE_INDEX_DESCRIPTIONS,
  LEAVES_BY_DOCTOR,
  RUN_INDEX_DESCRIPTIONS,
  SESSION_INDEX_DESCRIPTIONS,
  SESSION_INDEXES as I,
} from './indexes';

export const SESSIONS_INDEX_CATALOGUE: IndexedCollection[] = [
  {
    collection: SESSIONS,
    indexes: SESSION_INDEX_DESCRIPTIONS,
    queries: [
      {
        query: "list by branch (`{store_id, session_date?}`; a token's branches: `store_id:{$in}`)",
        index: indexRef(I.byStoreDate),
      },
      {
        query: "list by doctor, and the preview's existing slots: `{doctor_id(:{$in}), session_date?|range}`",
        index: indexRef(I.byDoctorDate),
      },
      { query: 'list by date only: `{session_date}`', index: indexRef(I.byDate) },
      {
        query: 'list without a filter: every session (the spec answers all of them)',
        index: 'none: reads the collection',
      },
      {
        query: 'the holder of a slot, and one session per slot: `{doctor_id, store_id, session_date, session_no}`',
        index: indexRef(I.slot),
      },
      { query: 'the sessions of an auto-creation run: `{run_id(:{$in})}`', index: indexRef(I.byRun) },
    ],
  },
  {
    collection: BOOKING_KEYS,
    indexes: [],
    queries: [{ query: "a booking's Idempotency-Key, bound once: insert, or read `{_id}`", index: '`_id`' }],
  },
  {
    collection: refCollectionName('appointment'),
    indexes: APPOINTMENT_INDEX_DESCRIPTIONS,
    queries: [
      {
        query: 'booked counts: `{session_id:{$in}, deleted:false}`',
        index: indexRef(APPOINTMENT_INDEX_DESCRIPTIONS[0]!.name!),
      },
    ],
  },
  {
    collection: RUNS,
    indexes: RUN_INDEX_DESCRIPTIONS,
    queries: [
      {
        query: 'unfinished runs `{status:{$in}}`, stale ones `{status, started_at:{$lt}}`',
        index: indexRef(RUN_INDEX_DESCRIPTIONS[0]!.name!),
      },
      {
        query: "recently rolled back `{status:'rolled_back', finished_at:{$gt}}`",
        index: indexRef(RUN_INDEX_DESCRIPTIONS[1]!.name!),
      },
    ],
  },
  {
    collection: refCollectionName('doctor'),
    indexes: [],
    queries: [
      {
        query: 'live doctors for the preview and auto-creation: `{deleted:false}`',
        index: 'none: one document per doctor',
      },
    ],
  },
  {
    collection: refCollectionName('doctor_leave'),
    indexes: LEAVE_INDEX_DESCRIPTIONS,
    queries: [
      {
        query:
          "leaves touching a range (the lists, a booking's day): `{doctor_id:{$in}?, from_date:{$lte}, to_date:{$gte}, deleted:false}`",
        index: indexRef(LEAVES_BY_DOCTOR),
      },
    ],
  },
  {
    collection: refCollectionName('holiday'),
    indexes: HOLIDAY_INDEX_DESCRIPTIONS,
    queries: [
      {
        query: "holidays in a range (the lists, a booking's day): `{date:{$gte,$lte}, deleted:false}`",
        index: indexRef(HOLIDAYS_BY_DATE),
      },
    ],
  },
];
