import Big from 'big.js';

/**
 * Money is kept in integer minor units (cents). Conversions round half-up on
 * the decimal value the client wrote: JSON 1.005 is the decimal 1.005 (the
 * shortest representation of the double), which rounds to 1.01, not to the
 * 1.00 that binary floating point would give.
 */
export type Cents = number;

export function toCents(amount: number): Cents {
  if (!Number.isFinite(amount)) throw new RangeError(`Not a finite amount: ${amount}`);
  return new Big(amount).times(100).round(0, Big.roundHalfUp).toNumber();
}

export function fromCents(cents: Cents): number {
  return cents / 100;
}

export function nullableCents(amount: number | null | undefined): Cents | null {
  return amount === null || amount === undefined ? null : toCents(amount);
}

export function nullableAmount(cents: Cents | null | undefined): number | null {
  return cents === null || cents === undefined ? null : fromCents(cents);
}

/** round(subtotal * percent / 100, 2), half-up, in cents. */
export function percentOf(subtotal: Cents, percent: number): Cents {
  return new Big(subtotal).times(new Big(percent)).div(100).round(0, Big.roundHalfUp).toNumber();
}
