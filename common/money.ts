// US dollars as the answers carry them (docs/metrics.md §8): a number with 4 decimals, null for no price.

/** Dollars to 4 decimals (null stays null). */
export const usd4 = (value: number | null | undefined): number | null =>
  value === null || value === undefined ? null : Math.round(value * 10_000) / 10_000;
