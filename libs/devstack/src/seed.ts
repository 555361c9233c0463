import type { NatsConnection } from 'nats';
import {
  REF_KINDS,
  REF_KINDS_BY_SERVICE,
  refSubject,
  SERVICE_NAMES,
  ServiceSubjects,
  type RefKind,
  type ServiceName,
} from '@clinic/contracts';
import { callService, isPlainObject, refRecordProblem, ServiceUnavailableError } from '@clinic/service-kit/internal';

export class SeedError extends Error {}

/** Reference records published at once at most, each awaiting its acknowledgement. */
const PUBLISH_WINDOW = 256;

const FILE_KEYS = REF_KINDS.map((kind) => `${kind}s`);

export interface ParsedSeed {
  records: Array<{ kind: RefKind; record: unknown }>;
}

/** Checks a seed file `{stores, users, patients, doctors, appointments}` (any key may be absent). */
export function parseSeedFile(content: unknown): ParsedSeed {
  if (!isPlainObject(content)) throw new SeedError('The seed file must hold a JSON object.');
  const unknownKeys = Object.keys(content).filter((key) => !FILE_KEYS.includes(key));
  if (unknownKeys.length > 0) {
    throw new SeedError(
      `Unknown key(s) in the seed file: ${unknownKeys.join(', ')}. Allowed: ${FILE_KEYS.join(', ')}.`,
    );
  }
  const problems: string[] = [];
  const records: ParsedSeed['records'] = [];
  for (const kind of REF_KINDS) {
    const list = content[`${kind}s`];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      problems.push(`${kind}s must be an array.`);
      continue;
    }
    list.forEach((record, index) => {
      const problem = refRecordProblem(kind, record);
      if (problem) problems.push(`${kind}s[${index}]: ${problem}`);
      else records.push({ kind, record });
    });
  }
  if (problems.length > 0) throw new SeedError(`The seed file is invalid:\n  ${problems.slice(0, 20).join('\n  ')}`);
  return { records };
}

export interface SeedResult {
  published: number;
  lastSeq: number;
}

/**
 * Publishes every record on `hospital.ref.<kind>` (as the hospital's systems
 * would) and returns once every service that keeps reference data reports it
 * has applied the stream up to the last record.
 */
export async function seedReferenceData(
  nc: NatsConnection,
  seed: ParsedSeed,
  options: { timeoutMs?: number } = {},
): Promise<SeedResult> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const consumers = SERVICE_NAMES.filter((name) => REF_KINDS_BY_SERVICE[name].length > 0);
  // Fail early, with a clear message, when a service is not running at all.
  for (const service of consumers) await refStatus(nc, service);

  const js = nc.jetstream();
  let lastSeq = 0;
  // A window of publications in flight: all of a large file at once would outrun the acknowledgements' timeout.
  for (let from = 0; from < seed.records.length; from += PUBLISH_WINDOW) {
    const acks = await Promise.all(
      seed.records
        .slice(from, from + PUBLISH_WINDOW)
        .map(({ kind, record }) => js.publish(refSubject(kind), JSON.stringify(record))),
    );
    for (const ack of acks) lastSeq = Math.max(lastSeq, ack.seq);
  }
  if (seed.records.length === 0) return { published: 0, lastSeq };

  const deadline = Date.now() + timeoutMs;
  for (const service of consumers) {
    for (;;) {
      const applied = await refStatus(nc, service);
      if (applied >= lastSeq) break;
      if (Date.now() > deadline) {
        throw new SeedError(
          `${service} applied the reference stream only up to ${applied} of ${lastSeq} within ${timeoutMs} ms.`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return { published: seed.records.length, lastSeq };
}

async function refStatus(nc: NatsConnection, service: ServiceName): Promise<number> {
  try {
    const reply = await callService(
      nc,
      ServiceSubjects[service].refStatus,
      {},
      { correlationId: `seed-${service}`, timeoutMs: 2_000 },
    );
    if (!reply.body.success)
      throw new SeedError(`${service} could not report its reference status: ${reply.body.error}`);
    return Number(reply.body.applied_seq);
  } catch (err) {
    if (err instanceof ServiceUnavailableError)
      throw new SeedError(`${service} is not running: no service answers ${ServiceSubjects[service].refStatus}.`);
    throw err;
  }
}

/**
 * A doctor as the reference stream carries one: Dr. Number `id`, Cardiology,
 * 2,500, Active, branch 1, no schedule; `fields` set any other value. For the
 * tests' and the bench's seeds.
 */
export const doctorRecord = (id: number, fields: Record<string, unknown> = {}) => ({
  id,
  name: `Dr. Number ${id}`,
  reg_no: `SLMC-${id}`,
  specialization: 'Cardiology',
  channeling_fee: 2500,
  status: 'Active',
  store_id: 1,
  schedule: [],
  ...fields,
});
