/**
 * Waiting for the writes in flight of something being closed (a day, a
 * session's settlement, a doctor's days of leave): each such write's outbox entry carries a fence from
 * before its write until the write has landed and its records are stored
 * (EventSpec.fences), so once no entry holds the fence, every write that read
 * the thing open has settled.
 */
import type { Outbox } from './outbox';

/** How often a closer looks whether the writes it waits for have settled. */
const POLL_MS = 25;

/** Whether no outbox entry holds `fence` any more, waiting up to `waitMs` for that. */
export async function fenceCleared(
  outbox: Pick<Outbox, 'holdsFence'>,
  fence: string,
  waitMs: number,
): Promise<boolean> {
  const giveUpAt = Date.now() + waitMs;
  for (;;) {
    if (!(await outbox.holdsFence(fence))) return true;
    if (Date.now() >= giveUpAt) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
