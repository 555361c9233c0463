/**
 * Days on which a doctor holds no session: the doctor's leave (from_date to
 * to_date inclusive) and holidays (of one branch, or of every branch when
 * store_id is null). Pure lookups over the records that concern a request.
 */
import type { DoctorLeaveRecord, HolidayRecord } from '@clinic/contracts';

export interface DayBlock {
  on_leave: boolean;
  /** The holiday's name, or null. */
  holiday: string | null;
}

/** Whether the leave keeps the doctor away on `date`. */
export const leaveCovers = (leave: DoctorLeaveRecord, doctorId: number, date: string): boolean =>
  leave.doctor_id === doctorId && leave.from_date <= date && date <= leave.to_date;

export class DayBlocks {
  private readonly leavesByDoctor = new Map<number, DoctorLeaveRecord[]>();
  private readonly holidaysByDate = new Map<string, HolidayRecord[]>();

  /**
   * `shown`: whether answers carry on_leave and holiday at all: only once the
   * service holds some leave or holiday record, so that without any, every
   * answer is exactly the spec's.
   */
  constructor(
    leaves: DoctorLeaveRecord[],
    holidays: HolidayRecord[],
    readonly shown: boolean,
  ) {
    for (const leave of leaves)
      this.leavesByDoctor.set(leave.doctor_id, [...(this.leavesByDoctor.get(leave.doctor_id) ?? []), leave]);
    // A branch's own holiday is named before one of every branch.
    const ordered = [...holidays].sort(
      (a, b) => Number(a.store_id === null) - Number(b.store_id === null) || a.id - b.id,
    );
    for (const holiday of ordered)
      this.holidaysByDate.set(holiday.date, [...(this.holidaysByDate.get(holiday.date) ?? []), holiday]);
  }

  onLeave(doctorId: number, date: string): boolean {
    return (this.leavesByDoctor.get(doctorId) ?? []).some((leave) => leaveCovers(leave, doctorId, date));
  }

  holiday(branchId: number | null, date: string): string | null {
    const holiday = (this.holidaysByDate.get(date) ?? []).find((h) => h.store_id === null || h.store_id === branchId);
    return holiday?.name ?? null;
  }

  of(doctorId: number, branchId: number | null, date: string): DayBlock {
    return { on_leave: this.onLeave(doctorId, date), holiday: this.holiday(branchId, date) };
  }

  blocks(doctorId: number, branchId: number | null, date: string): boolean {
    const block = this.of(doctorId, branchId, date);
    return block.on_leave || block.holiday !== null;
  }

  /** The doctors with leave, each with the span of dates their leaves cover. */
  leaveSpans(): Array<{ doctor_id: number; from: string; to: string }> {
    return [...this.leavesByDoctor].map(([doctorId, leaves]) => ({
      doctor_id: doctorId,
      // A doctor is listed with at least one leave, so neither reduce starts from nothing.
      from: leaves.map((l) => l.from_date).reduce((min, date) => (date < min ? date : min)),
      to: leaves.map((l) => l.to_date).reduce((max, date) => (date > max ? date : max)),
    }));
  }

  holidayDates(): string[] {
    return [...this.holidaysByDate.keys()];
  }
}
