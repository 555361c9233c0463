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
  /** A bearer token's length in characters; real ones are a few hundred. */
  tokenMaxLength: 8192,
  billItemsMax: 100,
  qtyMin: 1,
  qtyMax: 99,
  patientAgeMax: 150,
  perPageDefault: 20,
  perPageMax: 100,
  maxPatientsMax: 10_000,
  sessionNoMax: 1000,
  /** Appointments one session holds (they live on it, each numbered); an appointment's id is session id x factor + number. */
  appointmentsPerSessionMax: 1000,
  appointmentIdFactor: 10_000,
  /** A session's status as sent, and the list's status filter. */
  sessionStatusMaxLength: 20,
  autoCreateErrorsMax: 10,
  /** A bill cancellation's reason, as sent (it is stored trimmed); a refund's and a day's reopening's too. */
  cancelReasonMaxLength: 500,
  /** A payment's reference (a card slip or transfer number), as sent. */
  paymentReferenceMaxLength: 100,
  /** Payments, refunds and reversals one bill holds at most (its ledger lives on the bill). */
  ledgerEntriesMax: 100,
  /** Users a day's closing counts the cash of, and the length of a user id given as text (a token's `sub`). */
  countedCashMax: 200,
  userIdMaxLength: 200,
  /** A float or a count by denomination: how many kinds of notes and coins, and how many of one. */
  denominationsMax: 30,
  denominationCountMax: 100_000,
  /** What one approval may cover (a bill's items each priced apart, say). */
  approvalChecksMax: 100,
  /** An identity provider's `sub`, as a user's reference record may carry it. */
  subjectMaxLength: 255,
  /** Nesting of objects and arrays in a body; real bodies need 3. Deeper ones would overflow recursive code (JSON.stringify). */
  jsonDepthMax: 32,
  /** NATS messages one reply may take (each at most the server's max_payload, 1 MiB by default). */
  replyChunksMax: 64,
} as const;

export const REPLY_TOO_LARGE_MESSAGE = 'The answer is too large to send. Narrow the request with its filters.';

/** An `Idempotency-Key`: visible ASCII, as the gateway and the services both check it. */
export const IDEMPOTENCY_KEY_PATTERN = new RegExp(`^[\\x21-\\x7e]{1,${Limits.idempotencyKeyMaxLength}}$`);
export const BAD_IDEMPOTENCY_KEY_MESSAGE = `Idempotency-Key must be 1 to ${Limits.idempotencyKeyMaxLength} visible ASCII characters.`;

export const TOO_DEEP_MESSAGE = `Request body is nested more than ${Limits.jsonDepthMax} levels deep.`;

/** Whether objects and arrays in `value` nest deeper than `maxDepth` (checked without recursion). */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const pending: Array<{ node: object; depth: number }> = [];
  if (typeof value === 'object' && value !== null) pending.push({ node: value, depth: 1 });
  while (pending.length > 0) {
    const { node, depth } = pending.pop()!;
    if (depth > maxDepth) return true;
    for (const child of Object.values(node)) {
      if (typeof child === 'object' && child !== null) pending.push({ node: child, depth: depth + 1 });
    }
  }
  return false;
}
