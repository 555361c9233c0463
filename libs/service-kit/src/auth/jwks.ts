/**
 * An identity provider's key set, kept by a store of our own on jose's public API, so that the provider's outage is
 * this system's decision: refetch ages, a stale limit and bounded fetches for unknown `kid`s (docs/operations.md:
 * A hospital's identity provider). Keys go to fast-jwt as PEM.
 */
import { KeyObject, type webcrypto } from 'node:crypto';
import { counter, gauge, metricsEnabled } from '../process/metrics';
import type { Logger } from '../process/logger';

export interface KeyStoreOptions {
  url: string;
  /** A set older than this is fetched again (in the background while it is still usable). */
  maxAgeMs: number;
  /** How long after its fetch the last good set keeps verifying while the provider cannot be reached. */
  staleMaxMs: number;
  /** The least time between two fetches one unknown `kid` causes. */
  unknownKidIntervalMs: number;
  /** The least time between any two fetches (unknown `kid`s together, retries after a failure). */
  globalIntervalMs?: number;
  fetchTimeoutMs?: number;
  log?: Logger;
  /** The clock (tests). */
  now?: () => number;
}

/** What `/health/details` shows of the provider. */
export interface IdentityProviderStatus {
  /**
   * `ok`: the last fetch succeeded; `unreachable`: it failed, the last good set is used; `expired`: no set is usable,
   * every token is refused; `not_fetched`: no token has asked for the keys yet.
   */
  status: 'ok' | 'unreachable' | 'expired' | 'not_fetched';
  keys: number;
  fetched_at: string | null;
  /** When tokens start being refused if the provider stays unreachable. */
  usable_until: string | null;
  last_failure?: { at: string; error: string; failures: number };
}

/** What fast-jwt's key function receives: the token's header. */
interface DecodedToken {
  header: { alg?: string; kid?: string };
}

type LocalSet = (header: { alg?: string; kid?: string }) => Promise<unknown>;

const fetches = counter(
  'clinic_jwks_fetches_total',
  "Fetches of the identity provider's key set, by reason (initial, max_age, unknown_kid, expired) and outcome (ok, failed)",
  ['reason', 'outcome'],
);

/** The key stores of this process whose reachability the gauge below reports. */
const reported = new Set<JwksKeyStore>();
gauge({
  name: 'clinic_identity_provider_up',
  help: "1 while the identity provider's keys were last fetched fine (or not yet asked for), 0 while it is unreachable",
  collect() {
    this.reset();
    for (const store of reported) this.set(['unreachable', 'expired'].includes(store.status().status) ? 0 : 1);
  },
});

/** Unknown kids remembered for their interval; beyond this many the oldest are forgotten (the global ceiling holds). */
const KIDS_REMEMBERED = 10_000;

const iso = (ms: number) => new Date(ms).toISOString();

export class JwksKeyStore {
  private keys: { set: LocalSet; count: number; fetchedAt: number } | null = null;
  private failure: { at: number; error: string; failures: number } | null = null;
  private fetching: Promise<void> | null = null;
  private lastFetchAt = Number.NEGATIVE_INFINITY;
  private readonly kidsAsked = new Map<string, number>();
  private readonly pems = new WeakMap<object, string>();
  private readonly now: () => number;
  private readonly globalIntervalMs: number;
  // jose is an ECMAScript module: loaded once, by the first fetch of a process that uses a JWKS.
  private jose: Promise<typeof import('jose', { with: { 'resolution-mode': 'import' }})> | null = null;

  constructor(private readonly options: KeyStoreOptions) {
    this.now = options.now ?? Date.now;
    this.globalIntervalMs = options.globalIntervalMs ?? 1_000;
  }

  /** Reports this store in `clinic_identity_provider_up` (the one a process verifies its tokens with). */
  reportReachability(): this {
    reported.add(this);
    return this;
  }

  /**
   * Before a token is checked: resolves at once while the set is usable (starting a fetch in the background
   * once it is older than its maximum age); otherwise fetches, and rejects when no usable set comes of it.
   */
  usable(): Promise<void> | undefined {
    const age = this.keys ? this.now() - this.keys.fetchedAt : Number.POSITIVE_INFINITY;
    if (age <= this.options.maxAgeMs) return undefined;
    if (age <= this.options.staleMaxMs) {
      // The last failure is retried at most once per its own interval, never holding a request up.
      if (!this.failure || this.now() - this.failure.at >= Math.min(this.options.maxAgeMs, 30_000))
        void this.fetchSoon('max_age');
      return undefined;
    }
    return this.fetchSoon(this.keys ? 'expired' : 'initial').then(() => {
      if (!this.keys || this.now() - this.keys.fetchedAt > this.options.staleMaxMs)
        throw new Error("the identity provider's keys are not available");
    });
  }

  /** fast-jwt's key function: the PEM of the key the token's header names, fetching the set again for a new `kid`. */
  readonly resolve = async ({ header }: DecodedToken): Promise<string> => {
    await this.usable();
    let key = await this.find(header);
    if (key === null && header.kid !== undefined && this.mayAskFor(header.kid)) {
      await this.fetchSoon('unknown_kid');
      key = await this.find(header);
    }
    if (key === null) throw new Error('no key of the identity provider matches the token');
    return this.pemOf(key);
  };

  status(): IdentityProviderStatus {
    const keys = this.keys;
    const usableUntil = keys ? keys.fetchedAt + this.options.staleMaxMs : null;
    const expired = usableUntil === null ? this.failure !== null : this.now() > usableUntil;
    return {
      status: expired ? 'expired' : !keys ? 'not_fetched' : this.failure ? 'unreachable' : 'ok',
      keys: keys?.count ?? 0,
      fetched_at: keys ? iso(keys.fetchedAt) : null,
      usable_until: usableUntil === null ? null : iso(usableUntil),
      ...(this.failure
        ? { last_failure: { at: iso(this.failure.at), error: this.failure.error, failures: this.failure.failures } }
        : {}),
    };
  }

  private async find(header: { alg?: string; kid?: string }): Promise<object | null> {
    if (!this.keys) return null;
    try {
      return (await this.keys.set({ alg: header.alg, kid: header.kid })) as object;
    } catch {
      // No key, or several, match the header: as jose's remote set, this is a refusal.
      return null;
    }
  }

  /** Whether an unknown `kid` may cause a fetch now: once per its interval. */
  private mayAskFor(kid: string): boolean {
    const now = this.now();
    const last = this.kidsAsked.get(kid);
    if (last !== undefined && now - last < this.options.unknownKidIntervalMs) return false;
    this.kidsAsked.delete(kid);
    if (this.kidsAsked.size >= KIDS_REMEMBERED) this.kidsAsked.delete(this.kidsAsked.keys().next().value as string);
    this.kidsAsked.set(kid, now);
    return true;
  }

  /** One fetch at a time, at most one per global interval: those asking meanwhile share the next one. */
  private fetchSoon(reason: string): Promise<void> {
    if (this.fetching) return this.fetching;
    const wait = Math.max(0, this.lastFetchAt + this.globalIntervalMs - this.now());
    this.fetching = new Promise<void>((resolve) => setTimeout(resolve, wait))
      .then(() => this.fetchNow(reason))
      .finally(() => {
        this.fetching = null;
      });
    return this.fetching;
  }

  private async fetchNow(reason: string): Promise<void> {
    this.lastFetchAt = this.now();
    this.jose ??= import('jose');
    const { createLocalJWKSet } = await this.jose;
    try {
      const response = await fetch(this.options.url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.options.fetchTimeoutMs ?? 5_000),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const jwks = (await response.json()) as { keys: Parameters<typeof createLocalJWKSet>[0]['keys'] };
      const set = createLocalJWKSet(jwks) as LocalSet;
      if (this.failure)
        this.options.log?.info(
          { jwks_url: this.options.url, failures: this.failure.failures },
          'identity provider reachable again: its keys are fetched',
        );
      this.keys = { set, count: jwks.keys.length, fetchedAt: this.now() };
      this.failure = null;
      if (metricsEnabled()) fetches.inc({ reason, outcome: 'ok' });
    } catch (err) {
      const error = (err as Error).message;
      this.failure = { at: this.now(), error, failures: (this.failure?.failures ?? 0) + 1 };
      if (metricsEnabled()) fetches.inc({ reason, outcome: 'failed' });
      const usableUntil = this.keys ? iso(this.keys.fetchedAt + this.options.staleMaxMs) : null;
      this.options.log?.warn(
        { jwks_url: this.options.url, reason, error, keys_usable_until: usableUntil },
        usableUntil
          ? 'identity provider unreachable: its last keys verify tokens until keys_usable_until'
          : 'identity provider unreachable: no keys, every token is refused',
      );
    }
  }

  private pemOf(key: object): string {
    let pem = this.pems.get(key);
    if (!pem) {
      const object = key instanceof KeyObject ? key : KeyObject.from(key as webcrypto.CryptoKey);
      pem = object.export({ type: 'spki', format: 'pem' }).toString();
      this.pems.set(key, pem);
    }
    return pem;
  }
}
