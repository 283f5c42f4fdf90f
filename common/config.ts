// The environment, validated once at start and exported typed. No secret has a default.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

export const EnvSchema = z.object({
  HOME: z.string().optional(),
  AGENTMETER_HOME: z.string().min(1).optional(),
  AGENTMETER_SERVER: z.url().optional(),
  AGENTMETER_API_KEY: z.string().min(1).optional(),
  /** HS256 secret for JWT bearer tokens (at least 32 characters); without it JWTs are refused. */
  AGENTMETER_JWT_SECRET: z.string().min(32, 'AGENTMETER_JWT_SECRET must be at least 32 characters').optional(),
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
  const home = env.HOME ?? homedir();
  const fallback = join(home, '.agentmeter');
  return {
    env,
    home,
    agentmeterHome: env.AGENTMETER_HOME ?? fallback,
    defaultAgentmeterHome: !env.AGENTMETER_HOME || env.AGENTMETER_HOME === fallback,
  };
}
