// The readiness report of the reference (service-api.md "Readiness report"), validated with zod. Shared by
// the API (upload, list) and the evaluator that writes reports on a developer's machine.
import { z } from 'zod';
import { repoUrlProblem } from './repo-id.ts';

export const REASONING_EFFORTS = ['low', 'medium', 'high', 'off'] as const;

export const CriterionEvaluation = z
  .strictObject({
    numerator: z.number().int().min(0),
    denominator: z.number().int().min(1),
    rationale: z.string().max(8000),
  })
  .refine((c) => c.numerator <= c.denominator, { message: 'numerator must not exceed denominator' });

const reportFields = {
  // Every member of the organization reads it: no credential, query, fragment or local path (repo-id.ts).
  repoUrl: z
    .string()
    .min(1)
    .max(2048)
    .superRefine((url, ctx) => {
      const problem = repoUrlProblem(url);
      if (problem) ctx.addIssue({ code: 'custom', message: `repoUrl ${problem}` });
    }),
  apps: z.record(z.string().min(1).max(1024), z.strictObject({ description: z.string().max(8000) })),
  report: z.record(z.string().min(1).max(200), CriterionEvaluation),
  commitHash: z
    .string()
    .regex(/^[0-9a-f]{7,64}$/i, 'commitHash must be a hex commit id')
    .optional(),
  branch: z.string().min(1).max(512).optional(),
  hasLocalChanges: z.boolean().optional(),
  hasNonRemoteCommits: z.boolean().optional(),
  modelUsed: z.strictObject({ id: z.string().min(1).max(256), reasoningEffort: z.enum(REASONING_EFFORTS) }).optional(),
  agentVersion: z.string().min(1).max(64).optional(),
};

/** What a client uploads: the server assigns reportId and createdAt when they are absent. */
export const ReadinessReportInput = z.strictObject({
  reportId: z.uuid().optional(),
  createdAt: z.number().int().positive().optional(),
  ...reportFields,
});
export type ReadinessReportInput = z.infer<typeof ReadinessReportInput>;

export const ReadinessReport = z.strictObject({ reportId: z.uuid(), createdAt: z.number().int().positive(), ...reportFields });
export type ReadinessReport = z.infer<typeof ReadinessReport>;

/** A report's figures in one (an agentmeter extension: the server computes them, api/readiness/figures.ts). */
export const ReadinessSummary = z.strictObject({
  reportId: z.uuid(),
  criteria: z.number().int().min(0).describe('the criteria the report judged'),
  met: z.number().int().min(0).describe('the criteria met in full (numerator = denominator)'),
  score: z
    .number()
    .min(0)
    .max(1)
    .describe("the mean of the criteria's numerator / denominator (partial credit counts), 0 without criteria"),
});
export type ReadinessSummary = z.infer<typeof ReadinessSummary>;

export const ReadinessList = z.strictObject({
  reports: z.array(ReadinessReport),
  summaries: z
    .array(ReadinessSummary)
    .optional()
    .describe('one per report, in the same order (an agentmeter extension; the server always sends it)'),
});
