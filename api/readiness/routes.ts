// Readiness reports: GET lists (repoId, limit, startAfter), POST stores one. Served at
// /api/organization/maturity-level-reports and at its newer name /api/organization/agent-readiness-reports.
// Owners, managers and members read and upload (the CLI uploads from a developer's machine); guests 403.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { badRequest, HttpError } from '../../common/errors.ts';
import { type ReadinessReport, ReadinessReportInput } from '../../common/readiness.ts';
import { repoId } from '../../common/repo-id.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import type { Role } from '../auth/principal.ts';
import { requireRole } from '../auth/principal.ts';
import { limitParam } from '../query.ts';
import type { ReadinessStore } from './store.ts';

export const READINESS_PATHS = ['/api/organization/maturity-level-reports', '/api/organization/agent-readiness-reports'] as const;
const ROLES: readonly Role[] = ['owner', 'manager', 'member'];

export const ListQuery = z.strictObject({
  repoId: z
    .string()
    .regex(/^repo_[0-9a-f]{16}$/, 'repoId looks like repo_ followed by 16 hex digits')
    .optional(),
  limit: limitParam.optional(),
  startAfter: z.uuid('startAfter must be a reportId').optional(),
});

export function registerReadinessRoutes(app: FastifyInstance, deps: { auth: Authenticator; readiness: ReadinessStore }): void {
  for (const path of READINESS_PATHS) {
    app.get(path, async (request) => {
      const principal = await deps.auth.authenticate(request);
      requireRole(principal, ROLES, 'Readiness reports');
      const query = ListQuery.parse(request.query ?? {});
      const after = query.startAfter ? await deps.readiness.position(principal.orgId, query.startAfter) : undefined;
      if (query.startAfter && !after) throw badRequest(`startAfter ${query.startAfter} is not a report of this organization`);
      const reports = await deps.readiness.page(principal.orgId, { repo: query.repoId, after, limit: query.limit ?? 20 });
      return { reports };
    });

    app.post(path, { bodyLimit: 4 * 1024 * 1024 }, async (request, reply) => {
      const principal = await deps.auth.authenticate(request);
      requireRole(principal, ROLES, 'Uploading readiness reports');
      const input = ReadinessReportInput.parse(request.body);
      const report: ReadinessReport = { ...input, reportId: input.reportId ?? randomUUID(), createdAt: input.createdAt ?? Date.now() };
      const repo = repoId(report.repoUrl);
      if (!(await deps.readiness.add(principal.orgId, principal.userId, repo, report))) {
        throw new HttpError(409, `a report with reportId ${report.reportId} already exists`);
      }
      request.log.info({ reportId: report.reportId, repoId: repo, criteria: Object.keys(report.report).length }, 'readiness report stored');
      return reply.status(201).send({ report, repoId: repo });
    });
  }
}
