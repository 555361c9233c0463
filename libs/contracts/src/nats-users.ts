/**
 * The users NATS knows: one per process of the back end, and one per outside
 * system; each with a reply prefix only it may subscribe to. What each may do:
 * nats-permissions.ts.
 */
import { DEFAULT_OUTSIDE_SYSTEMS } from './outside-systems';

/** The users of the processes of the back end; outside systems add their own (outside-systems.ts). */
export const PROCESS_USERS = ['gateway', 'billing', 'catalogue', 'sessions', 'ops', 'provisioner'] as const;
export type ProcessUser = (typeof PROCESS_USERS)[number];
/** The users of an installation that declares no outside system of its own (the one `hospital`). */
export const NATS_USERS = [...PROCESS_USERS, ...DEFAULT_OUTSIDE_SYSTEMS.map((s) => s.name as 'hospital')] as const;
export type NatsUser = (typeof NATS_USERS)[number];

/** The prefix of a user's reply subjects (nats.js `inboxPrefix`); only that user may subscribe to it. */
export const inboxPrefixOf = (user: string): string => `_INBOX_${user}`;

/**
 * Whether a request's reply subject is a user's inbox (`_INBOX_<user>.…` of a user above): the only place a
 * responder answers. nats-server lets a responder publish to any reply subject (allow_responses ignores the deny
 * and allow lists), so a request naming `catalogue.charge.created` as its reply would have the answer stored as an
 * event.
 */
export const isUserInbox = (subject: string): boolean => /^_INBOX_[a-z][a-z0-9_]*\./.test(subject);
