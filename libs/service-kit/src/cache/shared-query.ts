/**
 * The answer of a query sent after the call: callers share one query when
 * they ask while none waits to be sent. The first caller's query goes at once;
 * those who ask while it is in flight share the next, sent when it returns.
 */
export class SharedQuery<T> {
  private inFlight: Promise<T> | null = null;
  private next: Promise<T> | null = null;

  constructor(private readonly query: () => Promise<T>) {}

  ask(): Promise<T> {
    if (this.next) return this.next;
    if (!this.inFlight) return this.send();
    const settled = this.inFlight.then(
      () => undefined,
      () => undefined,
    );
    this.next = settled.then(() => {
      this.next = null;
      return this.send();
    });
    return this.next;
  }

  private send(): Promise<T> {
    let sent: Promise<T>;
    try {
      sent = this.query();
    } catch (err) {
      sent = Promise.reject(err);
    }
    this.inFlight = sent;
    const done = () => {
      if (this.inFlight === sent) this.inFlight = null;
    };
    sent.then(done, done);
    return sent;
  }
}
