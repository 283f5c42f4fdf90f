// The shell: who is signed in, the navigation their role may use, and the page of the current path.
// The server checks every role on every request; the navigation only leaves out what would be refused.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, isAdmin } from './api.ts';
import type { Me, SignInState } from './api-types.ts';
import { Link } from './components.tsx';
import { ErrorBoundary } from './error-boundary.tsx';
import { rangeOf } from './figures.ts';
import { Adoption } from './pages/Adoption.tsx';
import { Budgets } from './pages/Budgets.tsx';
import { CodePage } from './pages/Code.tsx';
import { Device } from './pages/Device.tsx';
import { Machines } from './pages/Machines.tsx';
import { Organization } from './pages/Organization.tsx';
import { Overview } from './pages/Overview.tsx';
import { People } from './pages/People.tsx';
import { Person } from './pages/Person.tsx';
import { Pipeline } from './pages/Pipeline.tsx';
import { Readiness } from './pages/Readiness.tsx';
import { Sessions } from './pages/Sessions.tsx';
import { SignIn } from './pages/SignIn.tsx';
import { Teams } from './pages/Teams.tsx';
import { carryRange, navigate, useLocation } from './router.ts';

type SessionState = { state: 'loading' } | { state: 'out' } | { state: 'in'; me: Me };

const ADMIN_PAGES = [
  { path: '/overview', label: 'Overview' },
  { path: '/people', label: 'People' },
  { path: '/teams', label: 'Teams' },
  { path: '/adoption', label: 'Adoption' },
  { path: '/code', label: 'Code' },
  { path: '/readiness', label: 'Readiness' },
  { path: '/sessions', label: 'Sessions' },
  { path: '/budgets', label: 'Budgets' },
  { path: '/organization', label: 'Organization' },
  { path: '/pipeline', label: 'Pipeline' },
  { path: '/machines', label: 'Machines' },
];
const MEMBER_PAGES = [
  { path: '/me', label: 'My usage' },
  { path: '/code', label: 'Code' },
  { path: '/machines', label: 'Machines' },
];

// Asked as the script loads, before the first render: every page waits for this answer.
const firstSession = api<SignInState>('/api/v0/auth/session');

export function App() {
  const [session, setSession] = useState<SessionState>({ state: 'loading' });
  const loc = useLocation();
  useEffect(() => {
    firstSession.then(
      (s) => setSession(s.signedIn ? { state: 'in', me: s.me } : { state: 'out' }),
      () => setSession({ state: 'out' }),
    );
    const out = () => setSession({ state: 'out' });
    window.addEventListener('agentmeter:signed-out', out);
    return () => window.removeEventListener('agentmeter:signed-out', out);
  }, []);
  // Each page's title names it, for the browser's history and for screen readers; after moving to another
  // page, focus goes to its content (as a page load would), not left on the link in the header.
  const firstPath = useRef(loc.path);
  useEffect(() => {
    const page = [...ADMIN_PAGES, ...MEMBER_PAGES].find((p) => loc.path.startsWith(p.path));
    document.title = page ? `${page.label} · agentmeter` : 'agentmeter';
    if (loc.path !== firstPath.current) {
      firstPath.current = loc.path;
      document.getElementById('main')?.focus();
    }
  }, [loc.path]);

  if (session.state === 'loading') return null;
  if (session.state === 'out') return <SignIn onSignedIn={(me) => setSession({ state: 'in', me })} />;
  const { me } = session;
  const pages = isAdmin(me) ? ADMIN_PAGES : me.role === 'member' ? MEMBER_PAGES : [];
  const home = pages[0]?.path ?? '/';
  // The Code page was /impact: old links and bookmarks land on it.
  if (loc.path === '/impact') {
    const search = loc.query.toString();
    navigate(`/code${search ? `?${search}` : ''}`, true);
    return null;
  }
  if (loc.path === '/' && home !== '/') {
    navigate(carryRange(home, loc.query), true);
    return null;
  }
  const signOut = async () => {
    await api('/api/v0/auth/session', { method: 'DELETE' }).catch(() => undefined);
    setSession({ state: 'out' });
    // The sign-in page of the same organization, so it offers its identity provider's button.
    navigate(`/?org=${me.orgId}`, true);
  };
  return (
    <>
      <a href="#main" class="skip">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">agentmeter</span>
        <nav aria-label="Pages">
          <ul>
            {pages.map((p) => (
              <li key={p.path}>
                <Link href={carryRange(p.path, loc.query)} current={loc.path.startsWith(p.path)}>
                  {p.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span data-testid="who">
            {me.email} · {me.role} · {me.orgName}
          </span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <ErrorBoundary key={loc.path}>
          <Page me={me} path={loc.path} query={loc.query} />
        </ErrorBoundary>
      </main>
    </>
  );
}

function Page({ me, path, query }: { me: Me; path: string; query: URLSearchParams }) {
  // Every role may enroll a machine of their own.
  if (path === '/device') return <Device me={me} query={query} />;
  if (me.role === 'guest')
    return (
      <section class="notice" data-testid="guest">
        <h1>Nothing to show</h1>
        <p>
          Your account has the guest role, which sees no usage data. Ask an owner of {me.orgName} for the member role to see your own usage.
        </p>
      </section>
    );
  const range = rangeOf(query, new Date());
  const common = { path, query, ...range };
  if (path === '/me') return <Person {...common} userId="me" mine />;
  if (path === '/machines') return <Machines me={me} />;
  // Members too: the server answers them with their own figures only.
  if (path === '/code') return <CodePage {...common} teams={isAdmin(me)} />;
  if (!isAdmin(me))
    return (
      <section class="notice">
        <h1>Not available</h1>
        <p>
          This page shows other people's usage, which needs the manager or owner role. <Link href="/me">See your own usage</Link>.
        </p>
      </section>
    );
  if (path === '/overview') return <Overview {...common} />;
  if (path === '/people') return <People {...common} />;
  const person = /^\/people\/([^/]+)$/.exec(path);
  if (person) return <Person {...common} userId={decodeURIComponent(person[1]!)} mine={false} />;
  if (path === '/teams') return <Teams {...common} />;
  if (path === '/adoption') return <Adoption />;
  if (path === '/readiness') return <Readiness />;
  if (path === '/sessions') return <Sessions />;
  if (path === '/budgets') return <Budgets me={me} />;
  if (path === '/organization') return <Organization me={me} />;
  if (path === '/pipeline') return <Pipeline />;
  return (
    <section class="notice">
      <h1>No such page</h1>
      <p>
        <Link href="/overview">Go to the overview</Link>.
      </p>
    </section>
  );
}
