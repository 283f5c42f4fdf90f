// Every processing step returns a tagged result: nothing is dropped without a reason someone can read.
export type StepResult<T> =
  | { readonly kind: 'ok'; readonly value: T }
  | { readonly kind: 'drop'; readonly reason: string }
  | { readonly kind: 'quarantine'; readonly reason: string };

export const ok = <T>(value: T): StepResult<T> => ({ kind: 'ok', value });
export const drop = (reason: string): StepResult<never> => ({ kind: 'drop', reason });
export const quarantine = (reason: string): StepResult<never> => ({ kind: 'quarantine', reason });
