/** Subjects one user may use for one purpose of its job. */
export interface NatsGrant {
  purpose: string;
  publish?: string[];
  subscribe?: string[];
}
