/** What the bill export answers about a page it cannot continue (exports.ts). */
export const EXPORT_MESSAGES = {
  badCursor: 'cursor must be the next of an earlier page.',
  badAsOf: 'as_of must be the as_of of an earlier page.',
} as const;
