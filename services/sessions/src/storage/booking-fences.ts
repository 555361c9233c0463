/**
 * Bookings against a doctor's leave stored at the same time: a booking's
 * outbox entry carries its doctor's fence (EventSpec.fences) from before it
 * looks at the leaves until it has landed, and a leave waits until no entry
 * holds it before it looks for the bookings to cancel. So a booking that
 * looked before the leave was stored has landed by then, and one that looked
 * after saw the leave and was refused: none stands on a day of leave.
 */
import { fenceCleared, type Outbox } from '@clinic/service-kit/storage';

/** How long a leave waits for the doctor's bookings in flight before it fails (and its message comes again). */
const BOOKINGS_WAIT_MS = 10_000;

export const bookingFence = (doctorId: number): string => `booking:doctor:${doctorId}`;

/** Once every booking of the doctor in flight has landed or been refused; throws after BOOKINGS_WAIT_MS. */
export async function bookingsSettled(outbox: Pick<Outbox, 'holdsFence'>, doctorId: number): Promise<void> {
  if (!(await fenceCleared(outbox, bookingFence(doctorId), BOOKINGS_WAIT_MS)))
    throw new Error(`bookings of doctor ${doctorId} still in flight after ${BOOKINGS_WAIT_MS} ms`);
}
