/**
 * Conditional requests on single records (a bill, a charge, a session).
 *
 * A record's ETag is the digest of its representation: the very body its read
 * answers (`JSON.stringify` of it, the bytes the gateway sends), so it changes
 * whenever anything a client could have read changes, the record's own fields
 * or what the read joins to them (a user's name, a doctor's, booked counts).
 * Strong (`"..."`, no `W/`): equal tags are equal bytes, and only strong tags
 * may be compared for If-Match (RFC 9110 13.1.1).
 *
 * If-Match is checked inside the record's compare-and-set write (RecordWriter's
 * `decide`): the representation is made from the version the write is about to
 * replace, and a write that lost a race starts again from the new version, so
 * a stale tag is refused whichever replica changed the record first.
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
