/** One code of the error table (error-codes.ts): its statuses, what it means, its texts. */

/** A message as the code's answers give it: a fixed text, or a function of the case. */
export type ErrorText = string | ((...args: never[]) => string);

export interface ErrorCodeEntry {
  /** The statuses it is answered with (most have one). */
  readonly status: readonly number[];
  /** What it means, and what a client can do about it. */
  readonly description: string;
  /** The `error` texts it comes with. */
  readonly messages: readonly ErrorText[];
}

export const code = (
  status: number | readonly number[],
  description: string,
  ...messages: ErrorText[]
): ErrorCodeEntry => ({
  status: typeof status === 'number' ? [status] : status,
  description,
  messages,
});
