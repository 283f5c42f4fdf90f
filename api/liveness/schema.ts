// GET /healthz: the liveness probe a load balancer or an orchestrator asks, and its one answer.
import { z } from 'zod';

export const HEALTHZ_PATH = '/healthz';

export const Liveness = z.strictObject({ status: z.literal('ok') });
export type Liveness = z.infer<typeof Liveness>;
