// Machines: enrolling this machine (a collector key minted for the person signed in, shown once with the
// install command), and the collector keys of every machine, each revocable. Owners see the
// organization's, managers those of members, guests and their own, members their own (the server
// decides: GET /api/v0/machines/keys). A collector key only sends events and reads its own user's limits
// and usage (docs/keys.md).
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { Key, Keys, Me, NewKey } from '../api-types.ts';
import { Status, useData } from '../components.tsx';
import { allOrganizationUsers } from '../organization-users.ts';

const when = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace('T', ' ')}` : '');

/** The command that installs agentmeter on a machine with this collector key; the key goes to sh, not curl. */
export const installCommand = (origin: string, key: string) => `curl -fsSL ${origin}/install.sh | AGENTMETER_API_KEY=${key} sh`;

export function Machines({ me }: { me: Me }) {
  const [version, setVersion] = useState(0);
  const [minted, setMinted] = useState<{ key: string; name: string } | undefined>();
  const [message, setMessage] = useState<{ text: string; error: boolean } | undefined>();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const { data, error, loading } = useData(`machines|${version}`, async () => {
    const [keys, users] = await Promise.all([api<Keys>('/api/v0/machines/keys'), allOrganizationUsers(api)]);
    return { keys: keys.keys, emails: new Map(users.map((u) => [u.id, u.email])) };
  });

  const enroll = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setMessage(undefined);
    const label = name.trim() || 'enrolled from the dashboard';
    try {
      const answer = await api<NewKey>(`/api/v0/admin/users/${encodeURIComponent(me.userId)}/keys`, {
        method: 'POST',
        body: { scope: 'collector', name: label },
      });
      setMinted({ key: answer.apiKey, name: label });
      setName('');
      setVersion((v) => v + 1);
    } catch (e) {
      setMessage({ text: (e as Error).message, error: true });
    } finally {
      setBusy(false);
    }
  };

  const revoke = async (key: Key) => {
    if (!window.confirm(`Revoke ${key.name ?? key.prefix}? Its machine stops sending events until it is enrolled again.`)) return;
    try {
      await api(`/api/v0/admin/keys/${encodeURIComponent(key.id)}`, { method: 'DELETE' });
      setMessage({ text: `Revoked ${key.name ?? key.prefix}.`, error: false });
      setVersion((v) => v + 1);
    } catch (e) {
      setMessage({ text: (e as Error).message, error: true });
    }
  };

  // One group per machine; keys that have not delivered yet under their own heading.
  const groups = new Map<string, Key[]>();
  for (const k of data?.keys ?? []) groups.set(k.machineId ?? '', [...(groups.get(k.machineId ?? '') ?? []), k]);

  return (
    <>
      <h1>Machines</h1>
      <h2>Enroll this machine</h2>
      <p>
        Mints a <strong>collector key</strong> for you: it only sends your agents' events and reads your own credit limit and usage. It
        lasts until revoked here, whatever happens to this session.
      </p>
      <form onSubmit={enroll} class="inline">
        <label>
          Machine name <input value={name} maxLength={200} placeholder="e.g. ana-laptop" onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={busy}>
          Enroll this machine
        </button>
      </form>
      {minted ? (
        <section class="notice" data-testid="enrolled">
          <p>
            Run this on the machine ({minted.name}). The key is shown only now; it is written to <code>~/.agentmeter/collector.env</code>{' '}
            (mode 0600).
          </p>
          <pre>
            <code data-testid="install-command">{installCommand(window.location.origin, minted.key)}</code>
          </pre>
        </section>
      ) : null}
      {message ? (
        <p class={message.error ? 'error' : 'muted'} role={message.error ? 'alert' : 'status'}>
          {message.text}
        </p>
      ) : null}
      <h2>Collector keys by machine</h2>
      <Status loading={loading} error={error} />
      {data && data.keys.length === 0 ? <p>No collector key yet.</p> : null}
      {data && data.keys.length > 0 ? (
        <div class="scroll">
          <table data-testid="machine-keys">
            <thead>
              <tr>
                <th scope="col">Machine</th>
                <th scope="col">Key</th>
                <th scope="col">User</th>
                <th scope="col">Created (UTC)</th>
                <th scope="col">Last used (UTC)</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {[...groups].flatMap(([machine, keys]) =>
                keys.map((k) => (
                  <tr key={k.id} data-key={k.id}>
                    <th scope="row">{machine ? <code>{machine.slice(0, 12)}</code> : <span class="muted">no delivery yet</span>}</th>
                    <td>
                      {k.name ?? ''} <code class="muted">{k.prefix}…</code>
                    </td>
                    <td>{data.emails.get(k.userId) ?? k.userId}</td>
                    <td>{when(k.createdAt)}</td>
                    <td>{when(k.lastUsedAt) || 'never'}</td>
                    <td>
                      {k.revokedAt ? (
                        `revoked ${when(k.revokedAt)}`
                      ) : (
                        <button type="button" onClick={() => revoke(k)}>
                          Revoke
                        </button>
                      )}
                    </td>
                  </tr>
                )),
              )}
            </tbody>
          </table>
        </div>
      ) : null}
    </>
  );
}
