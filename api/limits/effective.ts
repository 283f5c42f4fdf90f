// A user's effective monthly credit limit: their own budget (api/budgets/) is a limit too, so the limit
// that counts is the smaller of the two. The limits route, the status line (api/me/) and enforcement
// read it from here.

/** Pure: the smaller of a user's credit limit and their own budget; null when they have neither. */
export function effectiveLimit(credits: number | null, budget: number | null): number | null {
  if (credits === null) return budget;
  return budget === null ? credits : Math.min(credits, budget);
}
