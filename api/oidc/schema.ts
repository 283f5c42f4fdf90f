// The OIDC provider an owner configures for an organization (migration 026), as the API takes it and
// shows it (never the client secret).
import { z } from 'zod';
import { IsoTime } from '../http/dates.ts';

/** Owners set the organization's provider here. */
export const OIDC_CONFIG_PATH = '/api/v0/organization/oidc';
/** The sign-in page asks here whether an organization signs in with a provider. */
export const OIDC_OPTIONS_PATH = '/auth/oidc/:orgId';
/** Where a browser starts signing in (the store's loginPath fills in the organization). */
export const OIDC_LOGIN_PATH = '/auth/oidc/:orgId/login';
/** The provider's redirect back. */
export const OIDC_CALLBACK_PATH = '/auth/oidc/callback';

export const PROVISION = ['member', 'none'] as const;

/** An issuer URL: http(s), no credentials, no query or fragment (the discovery document is below it). */
export const IssuerUrl = z
  .url({ protocol: /^https?$/, error: 'issuer must be an http(s) URL' })
  .max(500)
  .refine((value) => {
    const url = new URL(value);
    return !url.username && !url.password && !url.search && !url.hash;
  }, 'issuer must have no user, password, query or fragment');

export const ProviderBody = z.strictObject({
  issuer: IssuerUrl,
  clientId: z.string().trim().min(1).max(500),
  clientSecret: z.string().min(1, 'clientSecret is required').max(4096),
  groupsClaim: z
    .string()
    .regex(/^[A-Za-z0-9_:./-]{1,200}$/, 'groupsClaim must be a claim name')
    .nullish(),
  provision: z.enum(PROVISION).default('none'),
});
export type ProviderBody = z.infer<typeof ProviderBody>;

export const ProviderView = z.strictObject({
  issuer: z.string(),
  clientId: z.string(),
  groupsClaim: z.string().nullable(),
  provision: z.enum(PROVISION),
  updatedAt: IsoTime,
  /** Where people start signing in (the dashboard's button goes there). */
  loginPath: z.string(),
});
export type ProviderView = z.infer<typeof ProviderView>;

export const ProviderAnswer = z.strictObject({
  provider: ProviderView.nullable(),
  /** Where this server is reached (serve --public-url, else the request's own address). */
  urls: z
    .strictObject({
      login: z.string().describe('where people start signing in'),
      callback: z.string().describe('the redirect URI to register at the provider'),
    })
    .optional(),
});
export type ProviderAnswer = z.infer<typeof ProviderAnswer>;

export const OrgParams = z.strictObject({ orgId: z.string().regex(/^org_[0-9a-f]{16}$/, 'orgId must be an organization id (org_…)') });

/** The public answer the sign-in page asks for: whether an organization signs in with a provider. */
export const SignInOptions = z.strictObject({
  orgId: z.string(),
  oidc: z.boolean(),
  loginPath: z.string().optional(),
  // Shown beside the button, so that a person sent here by another site sees whose sign-in it starts.
  orgName: z.string().optional().describe("the organization's name, when it signs in with a provider"),
  providerHost: z.string().optional().describe("the host of the organization's identity provider"),
});
export type SignInOptions = z.infer<typeof SignInOptions>;

export const CallbackQuery = z.looseObject({ state: z.string().max(200).optional() });
