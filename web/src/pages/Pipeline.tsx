// Pipeline health: the latest batch runs and what they reported, and every machine that ships events
// with its last event and last delivery.
import { api } from '../api.ts';
import type { BatchRuns, Machines } from '../api-types.ts';
import { Status, useData } from '../components.tsx';
import { formatNumber } from '../figures.ts';

const when = (iso: string | null) => (iso ? iso.slice(0, 19).replace('T', ' ') : '');
function ago(iso: string, now: number): string {
  const minutes = Math.round((now - Date.parse(iso)) / 60_000);
  if (minutes < 60) return `${minutes} min ago`;
  if (minutes < 48 * 60) return `${Math.round(minutes / 60)} h ago`;
  return `${Math.round(minutes / 1440)} days ago`;
}

export function Pipeline() {
  const { data, error, loading } = useData('pipeline', async () => {
    const [runs, machines] = await Promise.all([api<BatchRuns>('/api/v0/admin/batch/runs?limit=10'), api<Machines>('/api/v0/machines')]);
    return { runs: runs.runs, machines: machines.machines, at: Date.now() };
  });
  const last = data?.runs[0];
  return (
    <>
      <h1>Pipeline health</h1>
      <Status loading={loading} error={error} />
      {data ? (
        <>
          <h2>Last batch run</h2>
          {last ? (
            <dl class="figures">
              <div class="figure">
                <dt>Run {last.id}</dt>
                <dd>{last.finishedAt ? `finished ${when(last.finishedAt)} UTC` : 'not finished (running, or failed)'}</dd>
              </div>
              <div class="figure">
                <dt>Days rebuilt</dt>
                <dd>{last.daysRebuilt ?? '–'}</dd>
              </div>
              <div class="figure">
                <dt>Unpriced models</dt>
                <dd>{last.unpricedModels.length === 0 ? 'none' : last.unpricedModels.join(', ')}</dd>
              </div>
            </dl>
          ) : (
            <p>The batch has not run yet.</p>
          )}
          {data.runs.length > 1 ? (
            <details>
              <summary>Earlier runs</summary>
              <div class="scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col" class="num">
                        Run
                      </th>
                      <th scope="col">Trigger</th>
                      <th scope="col">Started (UTC)</th>
                      <th scope="col">Finished (UTC)</th>
                      <th scope="col" class="num">
                        Days rebuilt
                      </th>
                      <th scope="col">Unpriced models</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.runs.map((r) => (
                      <tr key={r.id}>
                        <th scope="row" class="num">
                          {r.id}
                        </th>
                        <td>{r.trigger}</td>
                        <td>{when(r.startedAt)}</td>
                        <td>{when(r.finishedAt) || 'not finished'}</td>
                        <td class="num">{r.daysRebuilt ?? ''}</td>
                        <td>{r.unpricedModels.join(', ')}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </details>
          ) : null}
          <h2>Machines shipping events</h2>
          {data.machines.length === 0 ? (
            <p>No machine has shipped events yet.</p>
          ) : (
            <div class="scroll">
              <table data-testid="machines">
                <thead>
                  <tr>
                    <th scope="col">Machine</th>
                    <th scope="col">User</th>
                    <th scope="col">Agents</th>
                    <th scope="col" class="num">
                      Events
                    </th>
                    <th scope="col">Last event (UTC)</th>
                    <th scope="col">Last delivery (UTC)</th>
                    <th scope="col">Collector</th>
                  </tr>
                </thead>
                <tbody>
                  {data.machines.map((m) => (
                    <tr key={`${m.machineId}|${m.userId}`}>
                      <th scope="row">
                        <code>{m.machineId.slice(0, 12)}</code>
                      </th>
                      <td>{m.userEmail ?? m.userId}</td>
                      <td>{m.agents.join(', ')}</td>
                      <td class="num">{formatNumber(m.events)}</td>
                      <td>{when(m.lastEventAt)}</td>
                      <td>
                        {when(m.lastDeliveryAt)} <span class="muted">({ago(m.lastDeliveryAt, data.at)})</span>
                      </td>
                      <td>{m.collectorVersion ?? <span class="muted">not known yet</span>}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <h2>Records the server refused</h2>
          <p>
            The server does not keep the records it refuses: it names each one (index and reason) in its answer to the collector, which
            moves it to <code>spool/bad/</code> on that machine with a <code>.reason</code> file beside it.{' '}
            <code>agentmeter collect status</code> on a machine prints its quarantined count.
          </p>
        </>
      ) : null}
    </>
  );
}
