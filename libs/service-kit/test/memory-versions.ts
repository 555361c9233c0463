import type { VersionSource } from '../src/cache/versioned-cache';

/** Scope versions held in memory, for the cache's rules in one process (the stream's part: tests/integration/cache). */
export class MemoryVersions implements VersionSource {
  private seq = 0;
  readonly marks = new Map<string, number>();

  async of(scopes: string[]): Promise<Map<string, string>> {
    return new Map(scopes.map((scope) => [scope, String(this.marks.get(scope) ?? '')]));
  }

  async bump(scopes: string[]): Promise<void> {
    for (const scope of scopes) this.marks.set(scope, ++this.seq);
  }
}
