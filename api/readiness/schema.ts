// Readiness reports at the boundary: the routes' paths, the list's query and the upload's answer. The
// report itself is common/readiness.ts, shared with the CLI that evaluates and uploads it.
import { z } from 'zod';
import { ReadinessReport } from '../../common/readiness.ts';
import { limitParam } from '../http/query.ts';

/** The reports' path under its first name and under its newer one; both serve the same routes. */
export const READINESS_PATHS = ['/api/organization/maturity-level-reports', '/api/organization/agent-readiness-reports'] as const;

export const ReadinessListQuery = z.strictObject({
  repoId: z
    .string()
    .regex(/^repo_[0-9a-f]{16}$/, 'repoId looks like repo_ followed by 16 hex digits')
    .optional(),
  limit: limitParam.optional(),
  startAfter: z.uuid('startAfter must be a reportId').optional(),
});

/** POST's 201: the report as stored (reportId and createdAt filled in) and the repository's id. */
export const ReadinessUploaded = z.strictObject({ report: ReadinessReport, repoId: z.string() });
export type ReadinessUploaded = z.infer<typeof ReadinessUploaded>;
