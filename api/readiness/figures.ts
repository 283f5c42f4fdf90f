// Pure: a readiness report's figures in one, so that no reader (the dashboard, a script) derives them: the
// criteria judged, those met in full, and the score, the mean of the criteria's numerator / denominator
// (the partial credit docs/readiness.md describes).
import type { ReadinessReport, ReadinessSummary } from '../../common/readiness.ts';

export function readinessSummary(report: Pick<ReadinessReport, 'reportId' | 'report'>): ReadinessSummary {
  const criteria = Object.values(report.report);
  return {
    reportId: report.reportId,
    criteria: criteria.length,
    met: criteria.filter((c) => c.numerator === c.denominator).length,
    score: criteria.length === 0 ? 0 : criteria.reduce((n, c) => n + c.numerator / c.denominator, 0) / criteria.length,
  };
}
