// The environment, validated once at start and exported typed. No secret has a default.
import { join } from 'node:path';
import { z } from 'zod';
import { userHome } from './user-home.ts';

export const DEFAULT_JWT_MAX_LIFETIME = '24h';
const LIFETIME_RULE = 'takes a duration from 1m to 30d: a whole number followed by s, m, h or d (24h, 90m)';
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** A lifetime like "24h", "90m", "3600s" or "2d" in seconds; undefined unless it is from 1m to 30d. */
export function parseLifetime(text: string): number | undefined {
  const match = /^(\d{1,7})([smhd])$/.exec(text.trim());
  if (!match) return undefined;
  const seconds = Number(match[1]) * UNIT_SECONDS[match[2]!]!;
  return seconds >= 60 && seconds <= 30 * 86_400 ? seconds : undefined;
}

/** parseLifetime for a flag: throws the rule the value broke. */
export function lifetimeSeconds(text: string, what: string): number {
  const seconds = parseLifetime(text);
  if (seconds === undefined) throw new Error(`${what} ${LIFETIME_RULE}`);
  return seconds;
}

export const EnvSchema = z.object({
  HOME: z.string().optional(),
  AGENTMETER_HOME: z.string().min(1).optional(),
  AGENTMETER_SERVER: z.url().optional(),
  AGENTMETER_API_KEY: z.string().min(1).optional(),
  /** HS256 secret for JWT bearer tokens (at least 32 characters); without it JWTs are refused. */
  AGENTMETER_JWT_SECRET: z.string().min(32, 'AGENTMETER_JWT_SECRET must be at least 32 characters').optional(),
  /** Longest lifetime (exp - iat) of an accepted JWT, like 24h, 90m, 3600s or 2d (default 24h). */
  AGENTMETER_JWT_MAX_LIFETIME: z
    .string()
    .refine((v) => parseLifetime(v) !== undefined, `AGENTMETER_JWT_MAX_LIFETIME ${LIFETIME_RULE}`)
    .optional(),
  AGENTMETER_DB: z.string().min(1).optional(),
  /** Turns on GET /metrics for this bearer token (at least 32 characters); `serve --metrics-token` wins over it. */
  AGENTMETER_METRICS_TOKEN: z.string().min(32, 'AGENTMETER_METRICS_TOKEN must be at least 32 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
});
export type Env = z.infer<typeof EnvSchema>;

export interface Config {
  env: Env;
  /** The user's home: where the agents keep ~/.claude and ~/.factory. */
  home: string;
  /** Spool and collector state. */
  agentmeterHome: string;
  defaultAgentmeterHome: boolean;
}

export function loadConfig(raw: NodeJS.ProcessEnv = process.env): Config {
  const env = EnvSchema.parse(Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== '')));
  const home = userHome(env.HOME);
  const fallback = join(home, '.agentmeter');
  return {
    env,
    home,
    agentmeterHome: env.AGENTMETER_HOME ?? fallback,
    defaultAgentmeterHome: !env.AGENTMETER_HOME || env.AGENTMETER_HOME === fallback,
  };
}
