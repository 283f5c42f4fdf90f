// Sign-in: the API key or JWT goes in the request body of one POST, and the server answers with an
// HttpOnly cookie. The key is never put in the URL, in localStorage or in sessionStorage, and the form
// is cleared once it is sent.
import { useState } from 'preact/hooks';
import { api, type Me } from '../api.ts';

export function SignIn({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [credential, setCredential] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const me = await api<Me>('/api/v0/auth/session', { method: 'POST', body: { credential: credential.trim() } });
      setCredential('');
      onSignedIn(me);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="signin">
      <h1>agentmeter</h1>
      <p>Usage analytics for AI coding agents. Sign in with your API key (am_…) or a JWT.</p>
      <form onSubmit={submit}>
        <label for="credential">API key or token</label>
        <input
          id="credential"
          name="credential"
          type="password"
          autoComplete="off"
          spellcheck={false}
          required
          value={credential}
          onInput={(e) => setCredential(e.currentTarget.value)}
          aria-describedby={error ? 'signin-error' : 'signin-help'}
        />
        <p id="signin-help" class="muted">
          The key is exchanged for a session cookie that ends after 12 hours or when you sign out; it is not stored in the browser.
        </p>
        {error ? (
          <p id="signin-error" class="error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
