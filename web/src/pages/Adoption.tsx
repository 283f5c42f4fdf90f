// Adoption (owners and managers): the roster's figures from GET /api/v0/organization/adoption: people,
// activated, active in the last 7 and 28 days, by agent and by team, and the two lists to act on: who
// never sent an event and who went quiet. The CSV holds one line per person.

import { api } from '../api.ts';
import type { Adoption as AdoptionAnswer } from '../api-types.ts';
import { download, Figure, Status, useData } from '../components.tsx';
import { adoptionCsv, formatNumber } from '../figures.ts';

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : '');

export function Adoption() {
  const { data, error, loading } = useData('adoption', () => api<AdoptionAnswer>('/api/v0/organization/adoption'));
  const never = data?.people.filter((p) => p.state === 'never') ?? [];
  const quiet = data?.people.filter((p) => p.state === 'quiet') ?? [];
  return (
    <>
      <h1>Adoption</h1>
      <Status loading={loading} error={error} />
      {data ? (
        <div data-ready="true">
          <p class="muted">
            As of {data.asOf.slice(0, 16).replace('T', ' ')} UTC. Activated: any event ever. Quiet: activated, no event in the last{' '}
            {data.quietDays} days.
          </p>
          <dl class="figures">
            <Figure id="roster" label="People on the roster" value={data.totals.people} />
            <Figure id="activated" label="Activated" value={data.totals.activated} />
            <Figure id="active-7" label="Active in the last 7 days" value={data.totals.active7} />
            <Figure id="active-28" label="Active in the last 28 days" value={data.totals.active28} />
            <Figure id="never" label="Never activated" value={data.totals.neverActivated} />
            <Figure id="quiet" label={`Quiet for ${data.quietDays} days`} value={data.totals.quiet} />
          </dl>
          <p>
            <button
              type="button"
              onClick={() => download(`agentmeter-adoption-${data.asOf.slice(0, 10)}.csv`, 'text/csv', adoptionCsv(data.people))}
            >
              Download CSV (one line per person)
            </button>
          </p>
          <h2>By agent</h2>
          <Counts
            testId="adoption-agents"
            head="Agent"
            rows={data.byAgent.map((a) => ({ key: a.agent, label: a.agent, ...a }))}
            empty="No events yet."
          />
          <h2>By team</h2>
          <Counts
            testId="adoption-teams"
            head="Team"
            people
            rows={data.byTeam.map((t) => ({ key: t.teamId ?? '', label: t.team, ...t }))}
            empty="No teams (Teams page, or a roster CSV)."
          />
          <h2>Never activated ({formatNumber(data.totals.neverActivated)})</h2>
          <People testId="adoption-never" people={never} empty="Everyone on the roster has sent an event." />
          <h2>
            Quiet for {data.quietDays} days ({formatNumber(data.totals.quiet)})
          </h2>
          <People testId="adoption-quiet" people={quiet} empty={`Nobody went quiet for ${data.quietDays} days.`} />
        </div>
      ) : null}
    </>
  );
}

interface CountRow {
  key: string;
  label: string;
  people?: number;
  activated: number;
  active7: number;
  active28: number;
}

function Counts(props: { testId: string; head: string; rows: CountRow[]; people?: boolean; empty: string }) {
  if (props.rows.length === 0) return <p class="muted">{props.empty}</p>;
  return (
    <div class="scroll">
      <table data-testid={props.testId}>
        <thead>
          <tr>
            <th scope="col">{props.head}</th>
            {props.people ? <th scope="col">People</th> : null}
            <th scope="col">Activated</th>
            <th scope="col">Active, 7 days</th>
            <th scope="col">Active, 28 days</th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r) => (
            <tr key={r.key}>
              <th scope="row">{r.label}</th>
              {props.people ? <td class="num">{formatNumber(r.people ?? 0)}</td> : null}
              <td class="num">{formatNumber(r.activated)}</td>
              <td class="num">{formatNumber(r.active7)}</td>
              <td class="num">{formatNumber(r.active28)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function People(props: { testId: string; people: AdoptionAnswer['people']; empty: string }) {
  if (props.people.length === 0) return <p class="muted">{props.empty}</p>;
  return (
    <div class="scroll">
      <table data-testid={props.testId}>
        <thead>
          <tr>
            <th scope="col">E-mail</th>
            <th scope="col">Role</th>
            <th scope="col">Teams</th>
            <th scope="col">Agents</th>
            <th scope="col">Last event (UTC)</th>
          </tr>
        </thead>
        <tbody>
          {props.people.map((p) => (
            <tr key={p.userId}>
              <th scope="row">{p.email}</th>
              <td>{p.role}</td>
              <td>{p.teams.join(', ')}</td>
              <td>{p.agents.join(', ')}</td>
              <td>{day(p.lastEventAt) || 'never'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
