// The approval page of enrollment by device code (/device?code=BCDF-GHJK, printed by install.sh run
// without a key): the code from the address, the machine that asked (its name, address and time), and
// Approve or Deny. Approving gives that machine a collector key of the person signed in, nothing more
// (api/device/routes.ts). Every role may approve: the key only sends their own agents' events.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { DeviceRequest, Me } from '../api-types.ts';

const when = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

export function Device({ me, query }: { me: Me; query: URLSearchParams }) {
  const [typed, setTyped] = useState(query.get('code') ?? '');
  const [found, setFound] = useState<DeviceRequest | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const look = async (code: string) => {
    setError(undefined);
    setFound(undefined);
    if (!code.trim()) return;
    try {
      setFound(await api<DeviceRequest>(`/api/v0/auth/device/requests/${encodeURIComponent(code.trim())}`));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  // The code in the address is looked up at once: the person only has to confirm.
  useEffect(() => {
    void look(typed);
  }, []);

  const decide = async (decision: 'approve' | 'deny') => {
    if (!found) return;
    setBusy(true);
    setError(undefined);
    try {
      setFound(
        await api<DeviceRequest>(`/api/v0/auth/device/requests/${encodeURIComponent(found.userCode)}`, {
          method: 'POST',
          body: { decision },
        }),
      );
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h1>Enroll a machine</h1>
      <p>
        A machine ran the agentmeter installer without a key and printed a code. Approve it only if it is your machine: it then receives a{' '}
        <strong>collector key</strong> of yours ({me.email}), which only sends your agents' events and reads your own usage.
      </p>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void look(typed);
        }}
      >
        <label>
          Code{' '}
          <input
            name="code"
            value={typed}
            maxLength={32}
            autoComplete="off"
            spellcheck={false}
            placeholder="BCDF-GHJK"
            onInput={(e) => setTyped(e.currentTarget.value)}
          />
        </label>
        <button type="submit">Find</button>
      </form>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {found ? (
        <section class="notice" data-testid="device-request" data-state={found.state}>
          <dl>
            <dt>Code</dt>
            <dd>
              <code>{found.userCode}</code>
            </dd>
            <dt>Machine</dt>
            <dd>{found.machineName ?? 'unnamed'}</dd>
            <dt>Asked from</dt>
            <dd>{found.requestedFrom ?? 'unknown address'}</dd>
            <dt>Asked at</dt>
            <dd>
              {when(found.createdAt)} (expires {when(found.expiresAt)})
            </dd>
          </dl>
          {found.state === 'pending' ? (
            <p>
              <button type="button" disabled={busy} onClick={() => decide('approve')}>
                Approve this machine
              </button>{' '}
              <button type="button" disabled={busy} onClick={() => decide('deny')}>
                Deny
              </button>
            </p>
          ) : (
            <p role="status">
              {found.state === 'approved'
                ? `Approved${found.decidedBy ? ` by ${found.decidedBy}` : ''}: the machine receives its collector key within seconds. You can close this page.`
                : `Denied${found.decidedBy ? ` by ${found.decidedBy}` : ''}: the machine gets no key.`}
            </p>
          )}
        </section>
      ) : null}
    </>
  );
}
