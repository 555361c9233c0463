import { MongoNetworkError } from 'mongodb';
import { DatabaseBreaker, DatabaseUnavailableError } from '../src/database-breaker';
import { createLogger } from '../src/logger';

const log = createLogger('breaker-test', 'silent');
const outage = () => new MongoNetworkError('connection refused');

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

  it('lets everything through while closed and ignores errors that are not about connectivity', () => {
    const breaker = new DatabaseBreaker(downDatabase().ping, log);
    breaker.check();
    breaker.record(new Error('duplicate key'));
    expect(breaker.isOpen).toBe(false);
    expect(() => breaker.check()).not.toThrow();
  });

  it('fails fast after a connectivity error, then admits a single trial at a time', () => {
    const db = downDatabase();
    const breaker = new DatabaseBreaker(db.ping, log, 1_000, 60_000);
    breaker.check();
    breaker.record(outage());
    breaker.stop();
    expect(() => breaker.check()).toThrow(DatabaseUnavailableError);

    now += 1_001;
    expect(() => breaker.check()).not.toThrow(); // the trial
    expect(() => breaker.check()).toThrow(DatabaseUnavailableError); // others while it runs

    breaker.record(outage()); // the trial failed: open again for another second
    expect(() => breaker.check()).toThrow(DatabaseUnavailableError);
    now += 1_001;
    breaker.check();
    breaker.succeeded();
    expect(breaker.isOpen).toBe(false);
    expect(() => breaker.check()).not.toThrow();
    expect(() => breaker.check()).not.toThrow();
  });

  it('a trial that ends in an ordinary error frees the slot without closing', () => {
    const breaker = new DatabaseBreaker(downDatabase().ping, log, 1_000, 60_000);
    breaker.record(outage());
    breaker.stop();
    now += 1_001;
    breaker.check();
    breaker.record(new Error('validation'));
    expect(breaker.isOpen).toBe(true);
    expect(() => breaker.check()).not.toThrow();
  });

  it('closes by itself once the probe’s ping answers', async () => {
    jest.restoreAllMocks(); // real time: the probe sleeps between pings
    const db = downDatabase();
    const breaker = new DatabaseBreaker(db.ping, log, 60_000, 10);
    breaker.record(outage());
    expect(() => breaker.check()).toThrow(DatabaseUnavailableError);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(breaker.isOpen).toBe(true);
    db.answer();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(breaker.isOpen).toBe(false);
    expect(db.ping.mock.calls.length).toBeGreaterThan(1);
    breaker.stop();
  });
  it('stops holding the others back when a trial never ends', () => {
    const breaker = new DatabaseBreaker(downDatabase().ping, log, 1_000, 60_000, 5_000);
    breaker.record(outage());
    breaker.stop();
    now += 1_001;
    breaker.check(); // a trial that hangs: neither succeeded() nor record() follows
    now += 4_000;
    expect(() => breaker.check()).toThrow(DatabaseUnavailableError);
    now += 1_001;
    expect(() => breaker.check()).not.toThrow(); // a new trial
  });

  it('keeps probing after a ping that never answers', async () => {
    jest.restoreAllMocks();
    let calls = 0;
    const ping = jest.fn(() => (++calls === 1 ? new Promise<void>(() => undefined) : Promise.resolve()));
    const breaker = new DatabaseBreaker(ping, log, 60_000, 10, 30);
    breaker.record(outage());
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(breaker.isOpen).toBe(false);
    expect(ping).toHaveBeenCalledTimes(2);
    breaker.stop();
  });
});
