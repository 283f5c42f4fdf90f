// Sign-in: the API key or JWT goes in the request body of one POST, and the server answers with an
// HttpOnly cookie. The key is never put in the URL, in localStorage or in sessionStorage, and the form
// is cleared once it is sent. When the organization signs in with its identity provider (OIDC), a button
// leads there instead: the organization is the one the address names (?org=org_…, the link an owner
// shares, and where signing out lands). Nothing is kept in the browser's storage.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { Me, SignInChoices } from '../api-types.ts';

const ORG_ID = /^org_[0-9a-f]{16}$/;

/** The organization whose identity provider the page offers: the one the address names, if any. */
function orgToOffer(): string | undefined {
  const named = new URLSearchParams(window.location.search).get('org');
  return named && ORG_ID.test(named) ? named : undefined;
}

export function SignIn({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [credential, setCredential] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [provider, setProvider] = useState<{ login: string; orgName: string; host: string } | undefined>();
  const providerLogin = provider?.login;
  useEffect(() => {
    const org = orgToOffer();
    if (!org) return;
    api<SignInChoices>(`/auth/oidc/${org}`).then(
      (answer) =>
        setProvider(
          answer.oidc && answer.loginPath
            ? { login: answer.loginPath, orgName: answer.orgName ?? answer.orgId, host: answer.providerHost ?? '' }
            : undefined,
        ),
      () => undefined,
    );
  }, []);
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
      {window.location.pathname === '/device' && !providerLogin ? (
        <p class="notice" data-testid="device-signin-hint">
          To approve a machine's code, sign in first. Your organization signs in with its identity provider? Sign in at its link (an owner
          shares it), then open this code's link again: it finds you signed in.
        </p>
      ) : null}
      {provider ? (
        <p>
          {/* Whose sign-in this starts: a link from another site may have named the organization. */}
          <span data-testid="oidc-org">
            Organization <strong>{provider.orgName}</strong>, identity provider at {provider.host}:
          </span>{' '}
          <a class="provider-signin" id="oidc-signin" href={provider.login}>
            Sign in with your identity provider
          </a>
        </p>
      ) : null}
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
