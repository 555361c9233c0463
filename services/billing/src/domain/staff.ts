/**
 * Staff are people: a token names its caller by `sub`, which an
 * identity provider issues as a text; the users' reference records say which
 * staff user each subject is (a record's id, or its `subject`).
 */
import { userKey, type UserId } from './drawer';

/** The staff user a caller maps to; `known`: a live user record names them. */
export interface StaffUser {
  user_id: number;
  name: string | null;
  known: boolean;
}

/** A token's subject as a user id, when it is one (7, or "7"); null for any other text. */
export function userIdOf(sub: UserId): number | null {
  const key = userKey(sub);
  return typeof key === 'number' && key > 0 ? key : null;
}

/** Whose drawer a caller's money moves in: their staff user, else (unmapped) the token's subject. */
export const drawerUserOf = (staff: StaffUser | null, sub: UserId): UserId => staff?.user_id ?? userKey(sub);
