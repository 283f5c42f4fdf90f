// Readiness reports: GET lists (repoId, limit, startAfter), POST stores one. Served at
// /api/organization/maturity-level-reports and at its newer name /api/organization/agent-readiness-reports.
// Owners, managers and members read and upload (the CLI uploads from a developer's machine); guests 403.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { badRequest, HttpError } from '../../common/errors.ts';
import { ReadinessList, type ReadinessReport, ReadinessReportInput } from '../../common/readiness.ts';
import { repoId } from '../../common/repo-id.ts';
import { sendAnswer } from '../answers/answer.ts';
import type { ResponseCache } from '../answers/cache.ts';
import type { Changes } from '../answers/changes.ts';
import { PEOPLE } from '../auth/principal.ts';
import { declareRoute } from '../openapi/declare.ts';
import type { RouteDoc } from '../openapi/registry.ts';
import { readinessSummary } from './figures.ts';
import { READINESS_PATHS, ReadinessListQuery, ReadinessUploaded } from './schema.ts';
import type { ReadinessStore } from './store.ts';

export interface ReadinessDeps {
  readiness: ReadinessStore;
  /** The answer cache: a list is kept until a report is uploaded. */
  cache: ResponseCache;
  /** Told when a report is stored: the lists are stale. */
  changes: Pick<Changes, 'changed'>;
}

export function registerReadinessRoutes(app: FastifyInstance, deps: ReadinessDeps): void {
  for (const path of READINESS_PATHS) {
    const listDoc = {
      method: 'GET',
      path,
      freshness: 'cached',
      tag: 'Readiness',
      summary: 'List readiness reports, newest first',
      action: 'Readiness reports',
      access: { kind: 'user', roles: PEOPLE },
      query: ReadinessListQuery,
      responses: { 200: ReadinessList },
    } as const satisfies RouteDoc;
    declareRoute(app, listDoc, async ({ principal, query }, request, reply) =>
      sendAnswer(
        deps.cache,
        request,
        reply,
        { org: principal.orgId, now: new Date(), reads: ['readiness'] },
        async (): Promise<z.infer<typeof ReadinessList>> => {
          const after = query.startAfter ? await deps.readiness.position(principal.orgId, query.startAfter) : undefined;
          if (query.startAfter && !after) throw badRequest(`startAfter ${query.startAfter} is not a report of this organization`);
          const reports = await deps.readiness.page(principal.orgId, { repo: query.repoId, after, limit: query.limit ?? 20 });
          return { reports, summaries: reports.map(readinessSummary) };
        },
      ),
    );

    declareRoute(
      app,
      {
        method: 'POST',
        path,
        tag: 'Readiness',
        summary: 'Upload a readiness report',
        action: 'Uploading readiness reports',
        access: { kind: 'user', roles: PEOPLE },
        body: ReadinessReportInput,
        responses: { 201: ReadinessUploaded },
        errors: [409],
        options: { bodyLimit: 4 * 1024 * 1024 },
      },
      async ({ principal, body: input }, request, reply): Promise<ReadinessUploaded> => {
        const report: ReadinessReport = { ...input, reportId: input.reportId ?? randomUUID(), createdAt: input.createdAt ?? Date.now() };
        const repo = repoId(report.repoUrl);
        if (!(await deps.readiness.add(principal.orgId, principal.userId, repo, report))) {
          throw new HttpError(409, `a report with reportId ${report.reportId} already exists`);
        }
        deps.changes.changed({ kind: 'readiness', org: principal.orgId });
        request.log.info(
          { reportId: report.reportId, repoId: repo, criteria: Object.keys(report.report).length },
          'readiness report stored',
        );
        reply.status(201);
        return { report, repoId: repo };
      },
    );
  }
}
