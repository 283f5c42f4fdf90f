// The computers API's answers (service-api.md "Computer"), as toComputer (store.ts) builds them.
import { z } from 'zod';

export const ProvisioningStep = z.strictObject({
  id: z.string(),
  name: z.string(),
  status: z.enum(['pending', 'completed', 'failed']),
  error: z.string().optional(),
  startedAt: z.number().optional(),
  completedAt: z.number().optional(),
});

export const ComputerSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  providerType: z.enum(['byom', 'hosted']),
  createdAt: z.number(),
  hostId: z.string().optional(),
  hostname: z.string().optional(),
  status: z.enum(['provisioning', 'active', 'error']),
  provisioningSteps: z.array(ProvisioningStep),
  remoteUser: z.string().optional(),
});
export const RegisteredComputer = z.strictObject({
  computer: ComputerSchema,
  token: z.string().describe("the computer agent's token (amc_…), shown only in this answer"),
});
export const ComputerPage = z.strictObject({
  computers: z.array(ComputerSchema),
  pagination: z.strictObject({ hasMore: z.boolean(), nextCursor: z.string().optional() }),
});
export const ResultAnswer = z.strictObject({ status: z.enum(['idle', 'pending', 'running']) });
