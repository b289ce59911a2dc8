import '@picocss/pico/css/pico.min.css';
import './console.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { AccessLog } from './pages/AccessLog.tsx';
import { ApiClients } from './pages/ApiClients.tsx';
import { Apps } from './pages/Apps.tsx';
import { Audit } from './pages/Audit.tsx';
import { Calendar } from './pages/Calendar.tsx';
import { Formation } from './pages/Formation.tsx';
import { Jobs } from './pages/Jobs.tsx';
import { Patients } from './pages/Patients.tsx';
import { SecondFactor } from './pages/SecondFactor.tsx';
import { SignIn } from './pages/SignIn.tsx';
import { Users } from './pages/Users.tsx';
import { Webhooks } from './pages/Webhooks.tsx';
import { ensureRandomUuid, returningSession, type Session } from './session.ts';
import { ErrorMessage } from './ui.tsx';

ensureRandomUuid();

const BASE = '/console/';
/** The pages behind the navigation bar, by the first segment of their path under /console/. */
const PAGES = [
  { path: 'api-clients', title: 'API clients', Page: ApiClients },
  { path: 'apps', title: 'Apps', Page: Apps },
  { path: 'users', title: 'Users', Page: Users },
  { path: 'formation', title: 'Formation', Page: Formation },
  { path: 'patients', title: 'Patients', Page: Patients },
  { path: 'calendar', title: 'Calendar', Page: Calendar },
  { path: 'webhooks', title: 'Webhooks', Page: Webhooks },
  { path: 'jobs', title: 'Jobs', Page: Jobs },
  { path: 'audit', title: 'Audit log', Page: Audit },
  { path: 'access-log', title: 'Access log', Page: AccessLog },
  { path: 'second-factor', title: 'Second factor', Page: SecondFactor },
] as const;

const currentPath = () => window.location.pathname.replace(/^\/console\/?/, '').replace(/\/$/, '');
/** `patients/<id>` is the patients page, given `<id>`. */
const split = (path: string) => {
  const [first = '', ...rest] = path.split('/');
  return { first, subpath: rest.join('/') };
};
const pageAt = (path: string) => PAGES.find((candidate) => candidate.path === split(path).first);

function App() {
  // The session (and so the token) lives in this component's state only: a reload or sign-out drops it.
  const [session, setSession] = useState<Session>();
  const [path, setPath] = useState(currentPath());
  // Back from the sign-in page: the code is traded before anything shows.
  const [returning, setReturning] = useState(true);
  const [returnError, setReturnError] = useState<unknown>();

  useEffect(() => {
    returningSession()
      .then((signedIn) => {
        if (signedIn) setSession(signedIn);
        setPath(currentPath());
      })
      .catch(setReturnError)
      .finally(() => setReturning(false));
  }, []);

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
    const page = pageAt(path);
    document.title = session ? `${page?.title ?? 'Cairn'} · Cairn console` : 'Sign in · Cairn console';
  }, [path, session]);

  if (returning) return <main class="container narrow" aria-busy="true" />;
  if (!session) {
    return (
      <>
        {returnError ? (
          <main class="container narrow">
            <ErrorMessage error={returnError} />
          </main>
        ) : null}
        <SignIn
          onSignedIn={(signedIn) => {
            setSession(signedIn);
            if (!pageAt(path)) go(PAGES[0].path);
          }}
        />
      </>
    );
  }

  const page = pageAt(path) ?? PAGES[0];
  const Page = page.Page;
  const subpath = page === pageAt(path) ? split(path).subpath : '';
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
                  const ending = session.signOut();
                  setSession(undefined);
                  go('');
                  void ending;
                }}
              >
                Sign out
              </button>
            </li>
          </ul>
        </nav>
      </header>
      <main class="container">
        <Page key={`${page.path}:${session.who}`} session={session} subpath={subpath} go={go} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
