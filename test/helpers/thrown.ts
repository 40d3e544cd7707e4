import { expect } from 'vitest';

/** The error `fn` throws, checked to be a `kind` (the test fails if it throws nothing or something else). */
export function thrown<E extends Error>(fn: () => unknown, kind: new (...args: never[]) => E): E {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(kind);
    return error as E;
  }
  throw new Error(`expected a ${kind.name}`);
}
