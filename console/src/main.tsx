import '@picocss/pico/css/pico.min.css';
import './console.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiClients } from './pages/ApiClients.tsx';
import { Audit } from './pages/Audit.tsx';
import { Jobs } from './pages/Jobs.tsx';
import { SignIn } from './pages/SignIn.tsx';
import { Users } from './pages/Users.tsx';
import { ensureRandomUuid, type Session } from './session.ts';

ensureRandomUuid();

const BASE = '/console/';
/** The pages behind the navigation bar, by their path under /console/. */
const PAGES = [
  { path: 'api-clients', title: 'API clients', Page: ApiClients },
  { path: 'users', title: 'Users', Page: Users },
  { path: 'audit', title: 'Audit log', Page: Audit },
  { path: 'jobs', title: 'Jobs', Page: Jobs },
] as const;

const currentPath = () => window.location.pathname.replace(/^\/console\/?/, '').replace(/\/$/, '');

function App() {
  // The session (and so the token) lives in this component's state only: a reload or sign-out drops it.
  const [session, setSession] = useState<Session>();
  const [path, setPath] = useState(currentPath());

  useEffect(() => {
    const onPop = () => setPath(currentPath());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);

  const go = (to: string) => {
    window.history.pushState(null, '', `${BASE}${to}`);
    setPath(to);
  };

  useEffect(() => {
    const page = PAGES.find((candidate) => candidate.path === path);
    document.title = session ? `${page?.title ?? 'Cairn'} · Cairn console` : 'Sign in · Cairn console';
  }, [path, session]);

  if (!session) {
    return (
      <SignIn
        onSignedIn={(signedIn) => {
          setSession(signedIn);
          if (!PAGES.some((page) => page.path === path)) go(PAGES[0].path);
        }}
      />
    );
  }

  const page = PAGES.find((candidate) => candidate.path === path) ?? PAGES[0];
  const Page = page.Page;
  return (
    <>
      <header class="container">
        <nav aria-label="Console">
          <ul>
            <li>
              <strong>Cairn console</strong>
            </li>
          </ul>
          <ul>
            {PAGES.map((candidate) => (
              <li key={candidate.path}>
                <a
                  href={`${BASE}${candidate.path}`}
                  aria-current={candidate.path === page.path ? 'page' : undefined}
                  onClick={(event) => {
                    event.preventDefault();
                    go(candidate.path);
                  }}
                >
                  {candidate.title}
                </a>
              </li>
            ))}
            <li>
              <span class="who">
                {session.who} · {session.tenantName}/{session.instanceName}
              </span>
            </li>
            <li>
              <button
                type="button"
                class="secondary outline"
                onClick={() => {
                  setSession(undefined);
                  go('');
                }}
              >
                Sign out
              </button>
            </li>
          </ul>
        </nav>
      </header>
      <main class="container">
        <Page key={`${page.path}:${session.who}`} session={session} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
