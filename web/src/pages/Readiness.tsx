// Readiness reports of the organization's repositories, newest first (/api/organization/maturity-level-reports),
// each with the criteria met and the score the server computed (summaries).
import { api } from '../api.ts';
import type { ReadinessReports } from '../api-types.ts';
import { Status, useData } from '../components.tsx';

export function Readiness() {
  const { data, error, loading } = useData('readiness', () => api<ReadinessReports>('/api/organization/maturity-level-reports?limit=100'));
  return (
    <>
      <h1>Readiness reports</h1>
      <p class="muted">
        Uploaded with <code>agentmeter readiness upload</code>; the latest 100.
      </p>
      <Status loading={loading} error={error} />
      {data ? (
        data.reports.length === 0 ? (
          <p>No readiness reports yet.</p>
        ) : (
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Repository</th>
                  <th scope="col">When (UTC)</th>
                  <th scope="col">Branch and commit</th>
                  <th scope="col" class="num">
                    Criteria met
                  </th>
                  <th scope="col" class="num">
                    Score
                  </th>
                  <th scope="col">Model</th>
                </tr>
              </thead>
              <tbody>
                {data.reports.map((r, i) => {
                  // The report's figures as the server computed them (summaries, one per report).
                  const summary = data.summaries?.[i];
                  if (summary?.reportId !== r.reportId) throw new Error(`the answer has no summary of report ${r.reportId}`);
                  const { criteria, met, score } = summary;
                  return (
                    <tr key={r.reportId}>
                      <th scope="row">{r.repoUrl}</th>
                      <td>{new Date(r.createdAt).toISOString().slice(0, 16).replace('T', ' ')}</td>
                      <td>
                        {r.branch ?? ''} {r.commitHash ? <code>{r.commitHash.slice(0, 10)}</code> : null}
                      </td>
                      <td class="num">
                        {met} of {criteria}
                      </td>
                      <td class="num">{Math.round(score * 100)}%</td>
                      <td>{r.modelUsed?.id ?? ''}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )
      ) : null}
    </>
  );
}
