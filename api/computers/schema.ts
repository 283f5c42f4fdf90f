// The computers API's paths, inputs and answers (service-api.md "Computer"); the answers as toComputer
// (store.ts) builds them. The registration body is the computer agent's CLI's too: common/computer-protocol.ts.
import { z } from 'zod';
import { limitParam } from '../http/query.ts';

export const COMPUTERS_PATH = '/api/v0/computers';
export const COMPUTER_PATH = `${COMPUTERS_PATH}/:computerId`;

export const ListQuery = z.strictObject({ limit: limitParam.optional(), cursor: z.string().min(1).max(64).optional() });
export const IdParams = z.strictObject({ computerId: z.string().min(1).max(64) });

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
  counts: z
    .strictObject({ provisioning: z.number().int(), active: z.number().int(), error: z.number().int() })
    .optional()
    .describe('the computers listed in each status, over every page (an agentmeter extension; the server always sends it)'),
});
