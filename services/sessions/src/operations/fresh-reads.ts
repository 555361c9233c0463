/**
 * Reads of one session shared by the requests that wait for them: a request gets a read that began after it
 * arrived, and every request arriving while one is in flight shares the next. A rush of bookings then reads
 * its session twice at a time at most, not once per request (a thousand at once emptied the connection pool).
 */
export class FreshReads<T> {
  private readonly inFlight = new Map<number, { began: number; read: Promise<T> }>();
  private readonly following = new Map<number, Promise<T>>();

  constructor(private readonly read: (id: number) => Promise<T>) {}

  /** A read of `id` begun at `arrived` or later. */
  get(id: number, arrived = Date.now()): Promise<T> {
    const current = this.inFlight.get(id);
    if (!current) return this.begin(id);
    if (current.began >= arrived) return current.read;
    let next = this.following.get(id);
    if (!next) {
      next = current.read
        .catch(() => undefined)
        .then(() => {
          this.following.delete(id);
          return this.begin(id);
        });
      this.following.set(id, next);
    }
    return next;
  }

  private begin(id: number): Promise<T> {
    const read = this.read(id).finally(() => {
      if (this.inFlight.get(id)?.read === read) this.inFlight.delete(id);
    });
    this.inFlight.set(id, { began: Date.now(), read });
    return read;
  }
}
