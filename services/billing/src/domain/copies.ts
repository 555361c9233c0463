/**
 * The copies of a printed paper: the first print is the original, every
 * later one a duplicate that says so, numbered from 1. Pure.
 */
import type { PrintedPaper } from '@clinic/contracts';

/** What billing prints: a bill's papers, and channeling's (kept in the appointment's or the session's history). */
export type Paper = PrintedPaper | 'appointment_slip' | 'settlement_sheet';

/** `copy` 1 is the original (no mark); copy n + 1 is `DUPLICATE n`. */
export function copyMark(copy: number): string | null {
  return copy <= 1 ? null : `DUPLICATE ${copy - 1}`;
}

/**
 * The id of a print in its history: one per paper and copy, so that two
 * replicas printing at once cannot both take a copy number (the unique `_id`
 * decides, as it decides bill numbers).
 */
export function printId(paper: Paper, subject: string, copy: number): string {
  return `print:${paper}:${subject}:${copy}`;
}

/** A print to record: which paper of what, by whom, in which size; the storage gives it its copy number. */
export interface PrintRequest {
  /** Whose history the print goes in: the bill's, the appointment's (its slip) or the session's (its settlement). */
  entityId: number;
  paper: Paper;
  /** What is printed: the bill for a receipt, the credit note's number for a slip, the settlement's id. */
  subject: string;
  size: string;
  by: { sub: number | string; role: string };
  correlationId: string;
  creditNoteNumber?: string;
}

/** Where prints are recorded (storage implements it): the copy number this print took, 1 for the first. */
export interface PrintLog {
  record(print: PrintRequest): Promise<{ copy: number; at: Date }>;
}
