/**
 * Credit notes' numbers: `CN-<day>-<seq>`, consecutive per day, given to a
 * note the first time it is asked for and kept under the note's key. Two
 * unique indexes decide every race without a transaction: the key (two
 * replicas numbering the same note: the second reads the first's number)
 * and the number (two notes taking the same one: the second takes the next).
 * A number is used only by an insert that succeeded, so a day's have no gaps.
 */
import type { Collection, Db } from 'mongodb';
import { formatCreditNoteNumber, type CreditNoteKind } from '@clinic/contracts';
import { fail } from '@clinic/service-kit';
import type { CreditNoteNumbers } from '../domain/credit-notes';
import { isDuplicateKeyError } from './database-quirks';

export const CREDIT_NOTES = 'credit_notes';

export const CREDIT_NOTE_INDEXES = { number: 'credit_note_number_unique', daySeq: 'credit_notes_by_day_seq' } as const;

export interface CreditNoteDoc {
  /** The note's key (domain/credit-notes.ts): a refund's or a cancellation's. */
  _id: string;
  number: string;
  day: string;
  seq: number;
  kind: CreditNoteKind;
  bill_id: number;
  numbered_at: Date;
}

/** Numbers taken by other notes of the day at the same moment, at most, before giving up (409, retry). */
const MAX_COLLISIONS = 50;

export class CreditNoteBook implements CreditNoteNumbers {
  private readonly notes: Collection<CreditNoteDoc>;

  constructor(db: Db) {
    this.notes = db.collection<CreditNoteDoc>(CREDIT_NOTES);
  }

  async numberOf(note: { kind: CreditNoteKind; key: string; day: string; billId: number }): Promise<string> {
    const known = await this.notes.findOne({ _id: note.key });
    if (known) return known.number;
    let seq = (await this.highestSeq(note.day)) + 1;
    for (let collisions = 0; collisions < MAX_COLLISIONS; collisions++) {
      const doc: CreditNoteDoc = {
        _id: note.key,
        number: formatCreditNoteNumber(note.day, seq),
        day: note.day,
        seq,
        kind: note.kind,
        bill_id: note.billId,
        numbered_at: new Date(),
      };
      try {
        await this.notes.insertOne(doc);
        return doc.number;
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        const numbered = await this.notes.findOne({ _id: note.key });
        if (numbered) return numbered.number;
        seq = Math.max(seq, await this.highestSeq(note.day)) + 1;
      }
    }
    throw fail('RECORD_BUSY');
  }

  private async highestSeq(day: string): Promise<number> {
    const [last] = await this.notes
      .find({ day }, { projection: { _id: 0, seq: 1 } })
      .sort({ day: 1, seq: -1 })
      .limit(1)
      .hint(CREDIT_NOTE_INDEXES.daySeq)
      .toArray();
    return last?.seq ?? 0;
  }
}
