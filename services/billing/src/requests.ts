/** Who moves money when, as billing's operations take it from a request. */
import type { Caller } from '@clinic/contracts';
import type { ClinicClock } from '@clinic/service-kit';
import { newEventId } from '@clinic/service-kit/storage';
import type { Mover } from './money-rules';

/** The caller moves money today, on the clinic's clock; each entry is named by its event's id. */
export function moverOf(caller: Caller, clock: ClinicClock): Mover {
  const at = new Date();
  return { by: caller, day: (clock.timestamp(at) as string).slice(0, 10), at, newId: newEventId };
}
