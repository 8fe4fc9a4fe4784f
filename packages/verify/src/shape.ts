/**
 * Small runtime guards for the signed JSON a check reads: a signature says who wrote a payload, not
 * that it has the fields the check goes on to read. Each guard returns true or false, never throws.
 */
export type Guard = (value: unknown) => boolean;

export const isString: Guard = (value) => typeof value === 'string';
export const isInteger: Guard = (value) => Number.isSafeInteger(value);
export const isBoolean: Guard = (value) => typeof value === 'boolean';
/** Satoshis as decimal text, as statements write every amount. */
export const isSats: Guard = (value) => typeof value === 'string' && /^-?\d{1,30}$/.test(value);
export const nullable =
  (guard: Guard): Guard =>
  (value) =>
    value === null || guard(value);
export const literal =
  (...values: readonly unknown[]): Guard =>
  (value) =>
    values.includes(value);
export const arrayOf =
  (guard: Guard): Guard =>
  (value) =>
    Array.isArray(value) && value.every(guard);
export const anyOf =
  (...guards: Guard[]): Guard =>
  (value) =>
    guards.some((guard) => guard(value));

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * An object with every field of `required` (each passing its guard) and any of `optional`. `exact`:
 * no other field (what the issuer's schema says of a claim statement); otherwise others are let be.
 */
export function object(required: Record<string, Guard>, optional: Record<string, Guard> = {}, exact = true): Guard {
  return (value) => {
    if (!isRecord(value)) return false;
    for (const [name, guard] of Object.entries(required)) if (!(name in value) || !guard(value[name])) return false;
    for (const [name, guard] of Object.entries(optional)) if (value[name] !== undefined && !guard(value[name])) return false;
    return !exact || Object.keys(value).every((name) => name in required || name in optional);
  };
}
