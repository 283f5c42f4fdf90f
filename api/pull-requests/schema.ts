// Pull requests at the boundary: the webhook paths the code hosts call, the owners' routes that set each
// host's secret, and their answers (docs/pull-requests.md).
import { z } from 'zod';
import { CODE_HOSTS } from './payloads.ts';

export const GITHUB_HOOK_PATH = '/api/v1/hooks/github/:orgId';
export const GITLAB_HOOK_PATH = '/api/v1/hooks/gitlab/:orgId';
export const CODEHOSTS_PATH = '/api/v0/organization/codehosts';
export const CODEHOST_PATH = '/api/v0/organization/codehosts/:host';

/** The URL a host is given for an organization. */
export const hookPath = (host: 'github' | 'gitlab', orgId: string) =>
  (host === 'github' ? GITHUB_HOOK_PATH : GITLAB_HOOK_PATH).replace(':orgId', encodeURIComponent(orgId));

/** A delivery is JSON of at most this much (GitHub's pull_request payloads are tens of kilobytes). */
export const HOOK_BODY_LIMIT = 2 * 1024 * 1024;

export const HookParams = z.strictObject({ orgId: z.string().regex(/^org_[0-9a-f]{16}$/, 'an organization id (org_…)') });
export const HostParams = z.strictObject({ host: z.enum(CODE_HOSTS) });

export const DeliveryAnswer = z.object({
  status: z.enum(['accepted', 'ignored', 'duplicate']),
  detail: z.string(),
});
export type DeliveryAnswer = z.infer<typeof DeliveryAnswer>;

export const SetSecretBody = z.strictObject({
  secret: z
    .string()
    .min(16, 'a webhook secret has at least 16 characters')
    .max(1024)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'a webhook secret has no control characters'),
});

export const CodeHostView = z.object({
  host: z.enum(CODE_HOSTS),
  setBy: z.string(),
  setAt: z.string(),
  /** The path to give the host, after the server's address. */
  webhookPath: z.string(),
});
export const CodeHostList = z.object({ codehosts: z.array(CodeHostView) });
export const RemovedAnswer = z.object({ removed: z.boolean() });
