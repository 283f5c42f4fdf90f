// Sessions and the computers they run on, status at a glance (GET /api/v0/sessions, /api/v0/computers): the
// counts by status are the answers' own (counts), over every session and computer.
import { api } from '../api.ts';
import type { Computers, Sessions as SessionList } from '../api-types.ts';
import { Status, useData } from '../components.tsx';
import { DISPLAY_LOCALE } from '../figures.ts';

const when = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

export function Sessions() {
  const { data, error, loading } = useData('sessions', async () => {
    const [sessions, computers] = await Promise.all([
      api<SessionList>('/api/v0/sessions?limit=100'),
      api<Computers>('/api/v0/computers?limit=100'),
    ]);
    // The counts are the server's, over every session and computer, not only the 100 listed here.
    return { sessions: sessions.sessions, computers: computers.computers, counts: sessions.counts, computerCounts: computers.counts };
  });
  return (
    <>
      <h1>Sessions and computers</h1>
      <Status loading={loading} error={error} />
      {data ? (
        <>
          <dl class="figures">
            {(['running', 'pending', 'idle'] as const).map((s) => (
              <div class="figure" key={s}>
                <dt>Sessions {s}</dt>
                <dd>{data.counts?.[s] ?? 0}</dd>
              </div>
            ))}
            <div class="figure">
              <dt>Computers active</dt>
              <dd>{data.computerCounts?.active ?? 0}</dd>
            </div>
          </dl>
          <h2>Computers</h2>
          {data.computers.length === 0 ? (
            <p>
              No computers registered (<code>agentmeter computer register</code>).
            </p>
          ) : (
            <div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Computer</th>
                    <th scope="col">Host</th>
                    <th scope="col">Status</th>
                    <th scope="col">Registered (UTC)</th>
                  </tr>
                </thead>
                <tbody>
                  {data.computers.map((c) => (
                    <tr key={c.id}>
                      <th scope="row">{c.name}</th>
                      <td>{c.hostname ?? ''}</td>
                      <td>
                        <span class={`badge ${c.status}`}>{c.status}</span>
                      </td>
                      <td>{when(c.createdAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <h2>Sessions (latest 100)</h2>
          {data.sessions.length === 0 ? (
            <p>No sessions yet.</p>
          ) : (
            <div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Session</th>
                    <th scope="col">Status</th>
                    <th scope="col" class="num">
                      Messages
                    </th>
                    <th scope="col" class="num">
                      Credits
                    </th>
                    <th scope="col">Computer</th>
                    <th scope="col">Updated (UTC)</th>
                  </tr>
                </thead>
                <tbody>
                  {data.sessions.map((s) => (
                    <tr key={s.sessionId}>
                      <th scope="row">{s.title ?? s.sessionId}</th>
                      <td>
                        <span class={`badge ${s.status}`}>{s.status}</span>
                      </td>
                      <td class="num">{s.messageCount}</td>
                      <td class="num">{Math.round(s.sessionSettings.tokenUsage.serviceCredits).toLocaleString(DISPLAY_LOCALE)}</td>
                      <td>{data.computers.find((c) => c.id === s.computerId)?.name ?? s.computerId ?? ''}</td>
                      <td>{when(s.updatedAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      ) : null}
    </>
  );
}
