import { MongoNetworkError } from 'mongodb';
import { DatabaseBreaker, DatabaseUnavailableError } from '../src/storage/database-breaker';
import { createLogger } from '../src/process/logger';

const log = createLogger('breaker-test', 'silent');
const outage = () => new MongoNetworkError('connection refused');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Work that answers. */
const answers = async () => 'ok';
/** Work that fails with `err`. */
const failsWith = (err: Error) => async () => {
  throw err;
};

/** Work that ends when told to, and the means to tell it. */
function pending() {
  let settle!: { resolve(value: string): void; reject(err: Error): void };
  const promise = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  return { work: () => promise, ...settle };
}

describe('DatabaseBreaker', () => {
  let now = 1_000_000;
  beforeEach(() => jest.spyOn(Date, 'now').mockImplementation(() => now));
  afterEach(() => jest.restoreAllMocks());

  /** A ping that fails until `answer` is called. */
  function downDatabase() {
    let up = false;
    const ping = jest.fn(async () => {
      if (!up) throw outage();
    });
    return { ping, answer: () => (up = true) };
  }

  /** A breaker opened by a connectivity error, its probe stopped. */
  async function openedBreaker(...options: number[]): Promise<DatabaseBreaker> {
    const breaker = new DatabaseBreaker(downDatabase().ping, log, ...options);
    await expect(breaker.run(failsWith(outage()))).rejects.toThrow(MongoNetworkError);
    breaker.stop();
    return breaker;
  }

  it('lets everything through while closed and ignores errors that are not about connectivity', async () => {
    const breaker = new DatabaseBreaker(downDatabase().ping, log);
    expect(await breaker.run(answers)).toBe('ok');
    await expect(breaker.run(failsWith(new Error('duplicate key')))).rejects.toThrow('duplicate key');
    expect(breaker.isOpen).toBe(false);
    expect(await breaker.run(answers)).toBe('ok');
  });

  it('fails fast after a connectivity error, then admits a single trial at a time', async () => {
    const breaker = await openedBreaker(1_000, 60_000);
    expect(breaker.isOpen).toBe(true);
    await expect(breaker.run(answers)).rejects.toThrow(DatabaseUnavailableError);

    now += 1_001;
    const trial = pending();
    const trialAnswer = breaker.run(trial.work); // the trial
    await expect(breaker.run(answers)).rejects.toThrow(DatabaseUnavailableError); // others while it runs

    trial.reject(outage()); // the trial failed: open again for another second
    await expect(trialAnswer).rejects.toThrow(MongoNetworkError);
    await expect(breaker.run(answers)).rejects.toThrow(DatabaseUnavailableError);
    now += 1_001;
    expect(await breaker.run(answers)).toBe('ok');
    expect(breaker.isOpen).toBe(false);
    expect(await breaker.run(answers)).toBe('ok');
    expect(await breaker.run(answers)).toBe('ok');
  });

  it('a trial that ends in an ordinary error frees the slot without closing', async () => {
    const breaker = await openedBreaker(1_000, 60_000);
    now += 1_001;
    await expect(breaker.run(failsWith(new Error('validation')))).rejects.toThrow('validation');
    expect(breaker.isOpen).toBe(true);
    const next = pending();
    const nextAnswer = breaker.run(next.work); // a new trial, at once
    await expect(breaker.run(answers)).rejects.toThrow(DatabaseUnavailableError);
    next.resolve('ok');
    expect(await nextAnswer).toBe('ok');
    expect(breaker.isOpen).toBe(false);
  });

  it('closes by itself once the probe’s ping answers', async () => {
    jest.restoreAllMocks(); // real time: the probe sleeps between pings
    const db = downDatabase();
    const breaker = new DatabaseBreaker(db.ping, log, 60_000, 10);
    await expect(breaker.run(failsWith(outage()))).rejects.toThrow(MongoNetworkError);
    await expect(breaker.run(answers)).rejects.toThrow(DatabaseUnavailableError);
    await sleep(50);
    expect(breaker.isOpen).toBe(true);
    db.answer();
    await sleep(50);
    expect(breaker.isOpen).toBe(false);
    expect(db.ping.mock.calls.length).toBeGreaterThan(1);
    expect(await breaker.run(answers)).toBe('ok');
    breaker.stop();
  });

  it('stops holding the others back when a trial never ends, and the trial still gets its answer', async () => {
    jest.restoreAllMocks(); // real time: the trial's bound is a timer
    const breaker = await openedBreaker(20, 60_000, 100);
    await sleep(30);
    const hanging = pending();
    const hangingAnswer = breaker.run(hanging.work); // a trial that hangs
    await sleep(50);
    await expect(breaker.run(answers)).rejects.toThrow(DatabaseUnavailableError);
    await sleep(80);
    expect(await breaker.run(answers)).toBe('ok'); // a new trial, which closes the circuit
    expect(breaker.isOpen).toBe(false);
    hanging.resolve('late');
    expect(await hangingAnswer).toBe('late');
  });

  it('keeps probing after a ping that never answers', async () => {
    jest.restoreAllMocks();
    let calls = 0;
    const ping = jest.fn(() => (++calls === 1 ? new Promise<void>(() => undefined) : Promise.resolve()));
    const breaker = new DatabaseBreaker(ping, log, 60_000, 10, 30);
    await expect(breaker.run(failsWith(outage()))).rejects.toThrow(MongoNetworkError);
    await sleep(100);
    expect(breaker.isOpen).toBe(false);
    expect(ping).toHaveBeenCalledTimes(2);
    breaker.stop();
  });

  it('closes at once when a health check finds the database answering', async () => {
    const breaker = await openedBreaker(60_000, 60_000);
    breaker.close();
    expect(breaker.isOpen).toBe(false);
    expect(await breaker.run(answers)).toBe('ok');
  });
});
