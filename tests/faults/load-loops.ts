/**
 * What every load the fault tests run has in common: `count` loops run side by
 * side from start() while `running`, and stop() waits for the step each is in
 * to end, so that what was sent is carried to its outcome and counted.
 */
export abstract class LoadLoops {
  protected running = false;
  private loops: Promise<void>[] = [];

  constructor(private readonly count: number) {}

  start(): void {
    this.running = true;
    this.loops = Array.from({ length: this.count }, () => this.loop());
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** One loop: a step at a time while `running`. */
  protected abstract loop(): Promise<void>;
}
