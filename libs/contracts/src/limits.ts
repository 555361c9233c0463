/**
 * Bounds the spec leaves open ("not shown"). They keep hostile input away from
 * the database and keep money exact in integer minor units.
 */
export const Limits = {
  /** Largest amount in any money field, in currency units. */
  moneyMax: 999_999_999.99,
  nameMaxLength: 200,
  contactMaxLength: 50,
  nicMaxLength: 30,
  notesMaxLength: 2000,
  searchMaxLength: 200,
  idempotencyKeyMaxLength: 100,
  billItemsMax: 100,
  qtyMin: 1,
  qtyMax: 99,
  patientAgeMax: 150,
  perPageDefault: 20,
  perPageMax: 100,
  maxPatientsMax: 10_000,
  sessionNoMax: 1000,
  autoCreateErrorsMax: 10,
} as const;
