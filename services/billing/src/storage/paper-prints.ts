/**
 * Prints of a paper, each an entry of its history (the bill's, the
 * appointment's or the session's; action
 * `printed`) under an id naming the paper and its copy number: the unique
 * `_id` lets one print alone take a copy, whichever replica prints, and a
 * collision means "take the next", as with bill numbers. Nothing else
 * changes: a print moves no money and publishes no event.
 */
import type { Collection, Db } from 'mongodb';
import { fail } from '@clinic/service-kit';
import { auditTrailIndex, type AuditEntryDoc } from '@clinic/service-kit/storage';
import { printId, type PrintLog, type PrintRequest } from '../domain/copies';
import { isDuplicateKeyError } from './database-quirks';

/** Copies taken by other prints of the same paper at the same moment, at most, before giving up (409, retry). */
const MAX_COLLISIONS = 20;

export class PaperPrints implements PrintLog {
  private readonly history: Collection<AuditEntryDoc>;

  constructor(
    db: Db,
    private readonly collection: string,
  ) {
    this.history = db.collection<AuditEntryDoc>(collection);
  }

  async record(print: PrintRequest): Promise<{ copy: number; at: Date }> {
    let copy = (await this.lastCopy(print)) + 1;
    for (let collisions = 0; collisions < MAX_COLLISIONS; collisions++) {
      const at = new Date();
      try {
        await this.history.insertOne({
          _id: printId(print.paper, print.subject, copy),
          entity_id: print.entityId,
          action: 'printed',
          at,
          by: { sub: print.by.sub, role: print.by.role },
          correlation_id: print.correlationId,
          changes: {},
          paper: print.paper,
          copy,
          size: print.size,
          ...(print.creditNoteNumber ? { credit_note_number: print.creditNoteNumber } : {}),
        });
        return { copy, at };
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        copy = Math.max(copy, await this.lastCopy(print)) + 1;
      }
    }
    throw fail('RECORD_BUSY');
  }

  /** The highest copy of this paper printed so far, 0 before the first. */
  private async lastCopy(print: PrintRequest): Promise<number> {
    const prints = await this.history
      .find({ entity_id: print.entityId, action: 'printed' }, { projection: { _id: 1, copy: 1 } })
      .hint(auditTrailIndex(this.collection).name)
      .toArray();
    const prefix = printId(print.paper, print.subject, 0).slice(0, -1);
    return prints
      .filter((p) => p._id.startsWith(prefix))
      .reduce((highest, p) => Math.max(highest, Number(p.copy) || 0), 0);
  }
}
