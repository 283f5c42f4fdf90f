// The scopes of an API key (api/keys/schema.ts, KeyScope, which re-exports them). Here so the CLI
// can offer them as choices without loading the account store and its database layer.

/** personal: what the user's role allows; collector: what a developer machine needs (docs/keys.md). */
export const KEY_SCOPES = ['personal', 'collector'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];
