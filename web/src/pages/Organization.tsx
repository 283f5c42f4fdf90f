// The organization: its users and their roles, credit limits (owners and managers set them; owners turn
// enforcement on or off), and the history of the enterprise controls.
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { ControlChanges, Limits as LimitStatus, LimitsSaved, Me } from '../api-types.ts';
import { Status, useData } from '../components.tsx';
import { formatNumber } from '../figures.ts';
import { allOrganizationUsers } from '../organization-users.ts';

type Message = { text: string; error: boolean } | undefined;

export function Organization({ me }: { me: Me }) {
  const [version, setVersion] = useState(0);
  // Kept here: the page reloads its data after a change, and the message must outlive that reload.
  const [message, setMessage] = useState<Message>();
  const { data, error, loading } = useData(`org|${version}`, async () => {
    const [users, limits, history] = await Promise.all([
      allOrganizationUsers(api),
      api<LimitStatus>('/api/v0/organization/usage/limits/users'),
      api<ControlChanges>('/api/v0/organization/enterprise-controls/history?limit=20'),
    ]);
    return { users, limits, history: history.changes };
  });
  return (
    <>
      <h1>Organization</h1>
      <Status loading={loading} error={error} />
      {data ? (
        <>
          <Limits me={me} limits={data.limits} onChange={() => setVersion(version + 1)} message={message} setMessage={setMessage} />
          <h2>Users and roles</h2>
          <div class="scroll">
            <table data-testid="org-users">
              <thead>
                <tr>
                  <th scope="col">User</th>
                  <th scope="col">Role</th>
                  <th scope="col">Added (UTC)</th>
                  <th scope="col">Last signed in (UTC)</th>
                </tr>
              </thead>
              <tbody>
                {data.users.map((u) => (
                  <tr key={u.id}>
                    <th scope="row">{u.email}</th>
                    <td>{u.role}</td>
                    <td>{u.createdAt.slice(0, 10)}</td>
                    <td>{u.lastSignInAt ? u.lastSignInAt.slice(0, 16).replace('T', ' ') : 'never'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h2>Enterprise-control history</h2>
          {data.history.length === 0 ? (
            <p>The enterprise controls were never changed.</p>
          ) : (
            <div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col" class="num">
                      Revision
                    </th>
                    <th scope="col">When (UTC)</th>
                    <th scope="col">By</th>
                    <th scope="col">Settings set</th>
                  </tr>
                </thead>
                <tbody>
                  {data.history.map((c) => (
                    <tr key={c.revision}>
                      <th scope="row" class="num">
                        {c.revision}
                      </th>
                      <td>{c.updatedAt.slice(0, 16).replace('T', ' ')}</td>
                      <td>{c.user.email}</td>
                      <td>{Object.keys(c.settings).join(', ') || '(none)'}</td>
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

function Limits(props: { me: Me; limits: LimitStatus; onChange: () => void; message: Message; setMessage: (m: Message) => void }) {
  const { me, limits, onChange, message, setMessage } = props;
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const canEdit = me.role === 'owner' || me.role === 'manager';
  const save = async (email: string) => {
    const raw = drafts[email] ?? '';
    if (!/^\d+$/.test(raw.trim())) {
      setMessage({ text: `The limit for ${email} must be a whole number of credits, 0 or more`, error: true });
      return;
    }
    try {
      const answer = await api<LimitsSaved>('/api/v0/organization/usage/limits/users', {
        method: 'PUT',
        body: { users: [{ email, limit: Number(raw) }] },
      });
      const failed = answer.errors[0];
      setMessage(
        failed
          ? { text: `${failed.email}: ${failed.error}`, error: true }
          : { text: `Saved: ${email} may use ${formatNumber(Number(raw))} credits a month`, error: false },
      );
      if (!failed) {
        setDrafts({});
        onChange();
      }
    } catch (error) {
      setMessage({ text: (error as Error).message, error: true });
    }
  };
  const enforce = async (enabled: boolean) => {
    try {
      await api('/api/v0/organization/usage/limits/enforcement', { method: 'PUT', body: { enabled } });
      setMessage({ text: enabled ? 'Limits are now enforced' : 'Limits are no longer enforced', error: false });
      onChange();
    } catch (error) {
      setMessage({ text: (error as Error).message, error: true });
    }
  };
  return (
    <section aria-labelledby="limits-h">
      <h2 id="limits-h">Credit limits ({limits.month}, UTC)</h2>
      {me.role === 'owner' ? (
        <label class="check">
          <input type="checkbox" checked={limits.enforced} onChange={(e) => enforce(e.currentTarget.checked)} /> Enforce limits (a user over
          their limit has their prompts blocked)
        </label>
      ) : (
        <p>Limits are {limits.enforced ? '' : 'not '}enforced.</p>
      )}
      <p role="status" class={message?.error ? 'error' : 'ok'} data-testid="limits-message">
        {message?.text ?? ''}
      </p>
      <div class="scroll">
        <table data-testid="limits">
          <thead>
            <tr>
              <th scope="col">User</th>
              <th scope="col" class="num">
                Used this month
              </th>
              <th scope="col" class="num">
                Monthly limit
              </th>
              {canEdit ? <th scope="col">New limit</th> : null}
            </tr>
          </thead>
          <tbody>
            {limits.users.map((u) => (
              <tr key={u.userId} data-email={u.email}>
                <th scope="row">{u.email}</th>
                <td class={`num${u.over ? ' over' : ''}`}>
                  {formatNumber(u.used)}
                  {u.over ? ' (over)' : ''}
                </td>
                <td class="num" data-col="limit">
                  {u.limit === null ? 'none' : formatNumber(u.limit)}
                </td>
                {canEdit ? (
                  <td>
                    <form
                      class="inline"
                      onSubmit={(e) => {
                        e.preventDefault();
                        void save(u.email);
                      }}
                    >
                      <label class="sr-only" for={`limit-${u.userId}`}>
                        New monthly limit for {u.email}
                      </label>
                      <input
                        id={`limit-${u.userId}`}
                        type="number"
                        min="0"
                        step="1"
                        inputMode="numeric"
                        value={drafts[u.email] ?? ''}
                        onInput={(e) => setDrafts({ ...drafts, [u.email]: e.currentTarget.value })}
                      />
                      <button type="submit">Save</button>
                    </form>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
