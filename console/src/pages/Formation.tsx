import './formation.css';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useAction, useLoad } from '../hooks.ts';
import type { Session } from '../session.ts';
import { busyIf, ErrorMessage, type PageProps, Scroll, Section } from '../ui.tsx';
import {
  draftProblems,
  type FormationDocument,
  type FormationVersion,
  isLockOut,
  loadVersion,
  loadVersions,
  type Problem,
  publishDraft,
  publishProblems,
  saveDraft,
  type VersionInfo,
  when,
} from './formation/api.ts';
import { Compare } from './formation/Compare.tsx';
import { pretty } from './formation/diff.ts';

interface Loaded {
  versions: VersionInfo[];
  current?: FormationVersion;
  draft?: FormationVersion;
}

/** The instance's formation: the current version, the draft edited as JSON, two versions compared, the draft published. */
export function Formation({ session }: PageProps) {
  // Bumped by a save or a publish: everything is read again, the comparison too.
  const [stamp, setStamp] = useState(0);
  const {
    value: loaded,
    loading,
    error,
  } = useLoad(async (): Promise<Loaded> => {
    const [versions, current, draft] = await Promise.all([
      loadVersions(session),
      loadVersion(session, 'current'),
      loadVersion(session, 'draft'),
    ]);
    return { versions, ...(current ? { current } : {}), ...(draft ? { draft } : {}) };
  }, [session, stamp]);

  const reload = () => setStamp((value) => value + 1);
  const published = (loaded?.versions ?? []).filter((info) => info.version > 0).map((info) => info.version);

  return (
    <div class="formation" aria-busy={busyIf(loading && !loaded)}>
      <h1>Formation</h1>
      <p>
        The formation of instance <strong>{session.instanceName}</strong>: its roles, policies, dictionaries, programs and the
        rest. Edit the draft, compare it with a published version, then publish it as the next version.
      </p>
      <ErrorMessage error={error} />
      {loaded && (
        <>
          <Current current={loaded.current} />
          <Draft session={session} draft={loaded.draft} current={loaded.current} onSaved={reload} />
          <Compare
            session={session}
            versions={published}
            hasDraft={Boolean(loaded.draft)}
            current={loaded.current?.version}
            stamp={stamp}
          />
          <Publish session={session} hasDraft={Boolean(loaded.draft)} next={Math.max(0, ...published) + 1} onPublished={reload} />
        </>
      )}
    </div>
  );
}

/** What each top-level section of a document holds, in a sentence of its own. */
function summaries(document: FormationDocument) {
  return Object.entries(document).map(([name, value]) => {
    const what = Array.isArray(value)
      ? `${value.length} item${value.length === 1 ? '' : 's'}`
      : value && typeof value === 'object'
        ? 'set'
        : String(value);
    return { name, what };
  });
}

/** A document as two-space JSON in a focusable, named scrolling box (long lines scroll at 390 px). */
function DocumentText({ label, document }: { label: string; document: FormationDocument }) {
  return (
    <details>
      <summary>{label}</summary>
      <div class="formation-doc">
        <Scroll label={label} busy={false}>
          <pre>{pretty(document)}</pre>
        </Scroll>
      </div>
    </details>
  );
}

function Current({ current }: { current: FormationVersion | undefined }) {
  if (!current) {
    return (
      <Section title="Current version">
        <p data-testid="current-version">Nothing is published yet.</p>
      </Section>
    );
  }
  return (
    <Section title="Current version">
      <p data-testid="current-version">
        <strong>Version {current.version}</strong>
        {current.publishedAt && (
          <>
            , published <time dateTime={current.publishedAt}>{when(current.publishedAt)}</time>
            {current.publishedByName && <> by {current.publishedByName}</>}
          </>
        )}
        .
      </p>
      <ul class="formation-summary" aria-label={`Sections of version ${current.version}`}>
        {summaries(current.formation).map(({ name, what }) => (
          <li key={name}>
            <code>{name}</code>: {what}
          </li>
        ))}
      </ul>
      <DocumentText label={`Document of version ${current.version} (JSON)`} document={current.formation} />
    </Section>
  );
}

/** Reads the text as a formation document: an object, or the message to show beside the text. */
function parseDocument(text: string): { document: FormationDocument } | { problem: string } {
  try {
    const value: unknown = JSON.parse(text);
    if (!value || typeof value !== 'object' || Array.isArray(value)) return { problem: 'The draft must be one JSON object' };
    return { document: value as FormationDocument };
  } catch (caught) {
    return { problem: `Not valid JSON: ${caught instanceof Error ? caught.message : String(caught)}` };
  }
}

function Draft({
  session,
  draft,
  current,
  onSaved,
}: {
  session: Session;
  draft: FormationVersion | undefined;
  current: FormationVersion | undefined;
  onSaved: () => void;
}) {
  const saved = draft?.formation ?? current?.formation;
  const [text, setText] = useState(() => (saved ? pretty(saved) : '{}'));
  const [dirty, setDirty] = useState(false);
  const [syntax, setSyntax] = useState<string>();
  const action = useAction();
  const problems = draftProblems(action.error);

  // A draft read again (after a publish) replaces the text unless the operator has changed it.
  const savedText = saved ? pretty(saved) : '{}';
  useEffect(() => {
    if (!dirty) setText(savedText);
  }, [savedText]);

  const edit = (value: string) => {
    setText(value);
    setDirty(true);
    setSyntax(undefined);
  };

  const save = async (event: Event) => {
    event.preventDefault();
    const parsed = parseDocument(text);
    if ('problem' in parsed) {
      // Shown beside the text; the API is not called.
      action.clearError();
      setSyntax(parsed.problem);
      return;
    }
    setSyntax(undefined);
    await action.run('save', async () => {
      const kept = await saveDraft(session, parsed.document);
      setText(pretty(kept.formation));
      setDirty(false);
      onSaved();
      return `The draft was saved at ${when(kept.updatedAt)}`;
    });
  };

  const invalid = Boolean(syntax) || problems.length > 0;
  return (
    <Section title="Draft">
      <p data-testid="draft-status">
        {draft ? (
          <>
            Last saved <time dateTime={draft.updatedAt}>{when(draft.updatedAt)}</time>. It is checked fully only when published.
          </>
        ) : (
          'There is no draft: saving the text below makes one.'
        )}
      </p>
      <form onSubmit={save} aria-label="Edit the draft">
        <label for="draft-text">Draft document (JSON)</label>
        <textarea
          id="draft-text"
          name="draft"
          rows={18}
          spellcheck={false}
          autocomplete="off"
          value={text}
          onInput={(event) => edit((event.target as HTMLTextAreaElement).value)}
          aria-invalid={invalid ? 'true' : undefined}
          aria-describedby="draft-text-note"
        />
        <div id="draft-text-note" data-field-error={invalid ? 'draft' : undefined}>
          {syntax ? (
            <small class="error">{syntax}</small>
          ) : problems.length > 0 ? (
            <ProblemList intro="The API refused the draft:" problems={problems} />
          ) : (
            <small>{dirty ? 'Changed, not saved yet.' : 'The text is the saved draft.'}</small>
          )}
        </div>
        {problems.length === 0 && <ErrorMessage error={action.error} />}
        <p aria-live="polite">{action.done}</p>
        <div class="actions">
          <button type="submit" aria-busy={busyIf(action.busy === 'save')} disabled={Boolean(action.busy)}>
            Save draft
          </button>
          <button
            type="button"
            class="secondary"
            disabled={!dirty || Boolean(action.busy)}
            onClick={() => {
              setText(savedText);
              setDirty(false);
              setSyntax(undefined);
              action.clearError();
            }}
          >
            Discard changes
          </button>
          {current && (
            <button
              type="button"
              class="secondary outline"
              disabled={Boolean(action.busy)}
              onClick={() => edit(pretty(current.formation))}
            >
              Start from version {current.version}
            </button>
          )}
        </div>
      </form>
    </Section>
  );
}

function ProblemList({ intro, problems }: { intro: string; problems: Problem[] }) {
  return (
    <>
      <small class="error">{intro}</small>
      <ul class="problems">
        {problems.map((problem) => (
          <li key={`${problem.path}:${problem.message}`}>
            <code>{problem.path}</code> {problem.message}
          </li>
        ))}
      </ul>
    </>
  );
}

function Publish({
  session,
  hasDraft,
  next,
  onPublished,
}: {
  session: Session;
  hasDraft: boolean;
  next: number;
  onPublished: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  // The keyboard's focus follows the step: to the confirm button when it shows, back to the opener after.
  const opener = useRef<HTMLButtonElement>(null);
  const confirm = useRef<HTMLButtonElement>(null);
  const moved = useRef(false);
  useEffect(() => {
    if (!moved.current) return;
    (confirming ? confirm : opener).current?.focus();
  }, [confirming]);
  const step = (on: boolean) => {
    moved.current = true;
    setConfirming(on);
  };
  const problems = publishProblems(action.error);
  const lockOut = problems.filter(isLockOut);

  const publish = () =>
    action.run('publish', async () => {
      const made = await publishDraft(session);
      step(false);
      onPublished();
      return `Version ${made.version} was published and is now current.`;
    });

  return (
    <Section title="Publish">
      <p>
        Publishing checks the draft and makes it version {next}, current at once for every caller of {session.instanceName}. A
        draft that would take FORMATION_WRITE from you, or drop a role or policy still granted to someone, is refused.
      </p>
      {!confirming ? (
        <button
          type="button"
          ref={opener}
          disabled={!hasDraft || Boolean(action.busy)}
          onClick={() => {
            action.clearError();
            step(true);
          }}
        >
          Publish the draft…
        </button>
      ) : (
        <article aria-labelledby="publish-confirm-title" class="publish-confirm">
          <h3 id="publish-confirm-title">Publish the draft as version {next}?</h3>
          <p>The saved draft is published: changes not saved yet are not part of it.</p>
          <div class="actions">
            <button
              ref={confirm}
              type="button"
              aria-busy={busyIf(action.busy === 'publish')}
              disabled={Boolean(action.busy)}
              onClick={publish}
            >
              Publish version {next}
            </button>
            <button
              type="button"
              class="secondary outline"
              disabled={Boolean(action.busy)}
              onClick={() => {
                step(false);
                action.clearError();
              }}
            >
              Cancel
            </button>
          </div>
        </article>
      )}
      {problems.length > 0 ? (
        <div role="alert" class="publish-problems" data-testid="publish-problems">
          <p>
            <strong>The draft was not published</strong>
            {lockOut.length > 0
              ? ': it would lock callers out of this instance, who could then no longer manage it over the API.'
              : ': it has problems to fix first.'}
          </p>
          <ul class="problems">
            {problems.map((problem) => (
              <li key={`${problem.path}:${problem.message}`} data-lock-out={isLockOut(problem) ? 'true' : undefined}>
                <code>{problem.path}</code> {problem.message}
              </li>
            ))}
          </ul>
        </div>
      ) : (
        <ErrorMessage error={action.error} />
      )}
      <p aria-live="polite" data-testid="publish-done">
        {action.done}
      </p>
    </Section>
  );
}
