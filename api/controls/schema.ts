// Enterprise controls at the boundary: the routes' paths, bodies, queries and answers. The settings
// (service-api.md "Enterprise control change") have every field optional, unknown keys rejected at every
// level the reference describes. Secrets (customModels[].apiKey, extraHeaders
// values) are stored but never returned: see mask().
import { z } from 'zod';
import { freeForm } from '../../common/free-form.ts';
import { IsoTime } from '../http/dates.ts';
import { limitParam, wholeNumberParam } from '../http/query.ts';

export const CONTROLS_PATH = '/api/v0/organization/enterprise-controls';
export const CONTROLS_HISTORY_PATH = '/api/v0/organization/enterprise-controls/history';

const strings = z.array(z.string().max(2048)).max(1000);
const free = freeForm();
const port = z.number().int().min(1).max(65535);

export const CustomModel = z.strictObject({
  model: z.string().max(256).optional(),
  id: z.string().max(256).optional(),
  baseUrl: z.string().max(2048).optional(),
  apiKey: z.string().max(4096).optional(),
  displayName: z.string().max(256).optional(),
  index: z.number().int().optional(),
  maxContextLimit: z.number().int().positive().optional(),
  thinkingMaxTokens: z.number().int().nonnegative().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  enableThinking: z.boolean().optional(),
  noImageSupport: z.boolean().optional(),
  extraHeaders: z.record(z.string(), z.string().max(4096)).optional(),
  extraArgs: free.optional(),
  cloudProvider: z
    .strictObject({
      cloudProfile: z.string().optional(),
      cloudRegion: z.string().optional(),
      providerBaseUrl: z.string().optional(),
      cloudAuthRefresh: z.string().optional(),
      cloudCredentialExport: z.string().optional(),
    })
    .optional(),
});

export const Settings = z.strictObject({
  sessionDefaultSettings: z
    .strictObject({ model: z.string().max(256).optional(), specModeModel: z.string().max(256).optional() })
    .optional(),
  mcpAutonomyOverrides: free.optional(),
  cloudSessionSync: z.boolean().optional(),
  wikiCloudSync: z.boolean().optional(),
  includeCoAuthoredByAgent: z.boolean().optional(),
  enableAgentShield: z.boolean().optional(),
  ideAutoConnect: z.boolean().optional(),
  commandAllowlist: strings.optional(),
  commandDenylist: strings.optional(),
  customModels: z.array(CustomModel).max(100).optional(),
  modelPolicy: z
    .strictObject({
      allowedModelIds: strings.optional(),
      blockedModelIds: strings.optional(),
      allowCustomModels: z.boolean().optional(),
      allowedBaseUrls: strings.optional(),
      allowAllServiceModels: z.boolean().optional(),
      isFastModelsAllowed: z.boolean().optional(),
    })
    .optional(),
  mcpPolicy: z.strictObject({ enabled: z.boolean().default(false), allowlist: strings.optional() }).optional(),
  missionPolicy: z.strictObject({ restrictedAccess: z.boolean().default(false), allowedUserIds: strings.optional() }).optional(),
  userModelPolicies: free.optional(),
  enabledPlugins: free.optional(),
  extraKnownMarketplaces: free.optional(),
  strictKnownMarketplaces: z
    .array(z.strictObject({ repo: z.string().max(512) }))
    .max(200)
    .optional(),
  networkPolicy: z.strictObject({ allowedIps: strings.optional() }).optional(),
  sandbox: z
    .strictObject({
      enabled: z.boolean().optional(),
      filesystem: z
        .strictObject({
          allowWrite: strings.optional(),
          allowRead: strings.optional(),
          denyWrite: strings.optional(),
          denyRead: strings.optional(),
        })
        .optional(),
      network: z
        .strictObject({
          allowedDomains: strings.optional(),
          allowUnixSockets: strings.optional(),
          allowAllUnixSockets: z.boolean().optional(),
          allowLocalBinding: z.boolean().optional(),
          httpProxyPort: port.optional(),
          socksProxyPort: port.optional(),
        })
        .optional(),
    })
    .optional(),
  restrictMemberVisibility: z.boolean().optional(),
  restrictApiKeyCreationToManagers: z.boolean().optional(),
  managedComputersEnabled: z.boolean().optional(),
  byomComputersEnabled: z.boolean().optional(),
  managedComputersAllowedEmails: z.array(z.email()).max(10_000).optional(),
  byomComputersAllowedEmails: z.array(z.email()).max(10_000).optional(),
  sessionRetentionDays: z.number().int().positive().max(3650).optional(),
});
export type Settings = z.infer<typeof Settings>;

export const MASK = '********';

/** Pure: the settings as they may be shown: every secret replaced by MASK. */
export function mask(settings: Settings): Settings {
  if (!settings.customModels) return settings;
  return {
    ...settings,
    customModels: settings.customModels.map((m) => ({
      ...m,
      ...(m.apiKey !== undefined ? { apiKey: MASK } : {}),
      ...(m.extraHeaders ? { extraHeaders: Object.fromEntries(Object.keys(m.extraHeaders).map((k) => [k, MASK])) } : {}),
    })),
  };
}

/**
 * Pure: a client that read masked settings and sends them back unchanged keeps the stored secrets: a
 * MASK value takes the previous revision's secret of the custom model with the same id (or position).
 */
export function unmask(next: Settings, previous: Settings | undefined): Settings {
  if (!next.customModels) return next;
  const before = previous?.customModels ?? [];
  return {
    ...next,
    customModels: next.customModels.map((m, i) => {
      const old = before.find((b) => b.id !== undefined && b.id === m.id) ?? before[i];
      const headers = m.extraHeaders
        ? Object.fromEntries(Object.entries(m.extraHeaders).map(([k, v]) => [k, v === MASK ? (old?.extraHeaders?.[k] ?? '') : v]))
        : undefined;
      return { ...m, ...(m.apiKey === MASK ? { apiKey: old?.apiKey ?? '' } : {}), ...(headers ? { extraHeaders: headers } : {}) };
    }),
  };
}

/** One revision as the API shows it (secrets masked); GET answers `{revision: 0, settings: {}}` before the first. */
export const ControlChange = z.strictObject({
  revision: z.number().int().positive(),
  settings: Settings,
  user: z.strictObject({ id: z.string(), email: z.string(), name: z.string() }),
  updatedAt: IsoTime,
});
export type ControlChange = z.infer<typeof ControlChange>;
export const NoControls = z.strictObject({ revision: z.literal(0), settings: z.strictObject({}) });
/** GET: the latest revision, or NoControls before the first. */
export const CurrentControls = z.union([ControlChange, NoControls]);
export const ControlHistory = z.strictObject({
  changes: z.array(ControlChange),
  pagination: z.strictObject({ hasMore: z.boolean(), nextCursor: z.string().optional() }),
});
export type ControlHistory = z.infer<typeof ControlHistory>;

/** PUT: the whole new revision (a masked secret sent back unchanged keeps the stored one: unmask). */
export const PutControlsBody = z.strictObject({ settings: Settings });
export const HistoryQuery = z.strictObject({
  limit: limitParam.optional(),
  // Revisions are INTEGER (from 1).
  cursor: wholeNumberParam(1, 2_147_483_647, 'cursor must be a revision number taken from pagination.nextCursor').optional(),
});
