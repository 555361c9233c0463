/**
 * Conditional requests on single records: a strong ETag digesting the read's body, If-Match checked inside the
 * compare-and-set write (docs/service-kit.md: Conditional requests).
 */
import { createHash } from 'node:crypto';
import type { ServiceReply } from '@clinic/contracts';
import { fail } from './errors';

/** The strong ETag of a representation. */
export function entityTag(representation: unknown): string {
  const digest = createHash('sha256').update(JSON.stringify(representation)).digest('base64url');
  return `"${digest.slice(0, 27)}"`;
}

/** A single record's read: its answer with the ETag of its body, placed before the body (see ServiceReply). */
export function taggedReply(reply: ServiceReply): ServiceReply {
  return { status: reply.status, etag: entityTag(reply.body), body: reply.body };
}

/**
 * A change's answer, carrying the ETag of the record's representation after it (as a read right after would
 * give it), so that a client can make its next conditional change without reading the record again.
 */
export function withNewTag(reply: ServiceReply, representation: ServiceReply): ServiceReply {
  return { status: reply.status, etag: entityTag(representation.body), body: reply.body };
}

/** The entity tags of an If-Match or If-None-Match header (`*` stays `*`; weak ones keep their `W/`). */
export function listedTags(header: string): string[] {
  return [...header.matchAll(/\*|(?:W\/)?"[^"]*"/g)].map((m) => m[0]);
}

/** If-Match: strong comparison, so a weak tag never matches; `*` matches any current representation. */
export function ifMatchAccepts(header: string, current: string): boolean {
  return listedTags(header).some((tag) => tag === '*' || tag === current);
}

/** If-None-Match: weak comparison (RFC 9110 13.1.2). */
export function ifNoneMatchHolds(header: string, current: string): boolean {
  const opaque = (tag: string) => tag.replace(/^W\//, '');
  return listedTags(header).some((tag) => tag === '*' || opaque(tag) === opaque(current));
}

/**
 * Inside a change's `decide`, once the record is found (and may be changed at
 * all): with If-Match, 412 unless the record's current representation has one
 * of the tags. Without it, nothing: the spec's behaviour.
 */
export async function requireCurrent(
  ifMatch: string | null,
  representation: () => Promise<unknown> | unknown,
): Promise<void> {
  if (ifMatch === null) return;
  if (!ifMatchAccepts(ifMatch, entityTag(await representation()))) throw fail('PRECONDITION_FAILED');
}
