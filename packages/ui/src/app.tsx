// The app shell: sign in with a key, pick an owner, then one view at a time
// from the hash route. The key is checked by asking the server who it is
// (GET /v1/whoami), so a wrong or revoked key is refused at the door.
import { useEffect, useMemo, useState } from 'preact/hooks';
import {
  SessionContext,
  clientFor,
  describeError,
  useLoad,
  type Identity,
  type Session,
} from './api.ts';
import { forgetKey, saveKey, savedKey } from './session.ts';
import { href, navigate, useRoute, type ViewName } from './router.ts';
import { Overview } from './views/overview.tsx';
import { Search } from './views/search.tsx';
import { GraphView } from './views/graph.tsx';
import { SourceView } from './views/source.tsx';
import { Reads } from './views/reads.tsx';
import { Audit } from './views/audit.tsx';
import { Queues } from './views/queues.tsx';

const NAV: { view: ViewName; label: string }[] = [
  { view: 'overview', label: 'Overview' },
  { view: 'search', label: 'Search' },
  { view: 'graph', label: 'Provenance' },
  { view: 'source', label: 'Sources' },
  { view: 'reads', label: 'Blast radius' },
  { view: 'audit', label: 'Audit' },
  { view: 'queues', label: 'Queues' },
];

export function App() {
  const [key, setKey] = useState<string | null>(savedKey);
  const [who, setWho] = useState<Identity | null>(null);
  const client = useMemo(() => (key ? clientFor(key) : null), [key]);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!client) return;
    client.whoami().then(setWho, (e: unknown) => {
      forgetKey();
      setKey(null);
      setError(describeError(e));
    });
  }, [client]);

  if (!key || !client) {
    return (
      <SignIn
        error={error}
        onKey={(k) => {
          setError(null);
          saveKey(k);
          setKey(k);
        }}
      />
    );
  }
  if (!who)
    return (
      <p class="loading" role="status">
        Checking the key…
      </p>
    );
  return (
    <Shell
      client={client}
      apiKey={key}
      who={who}
      signOut={() => {
        forgetKey();
        setWho(null);
        setKey(null);
      }}
    />
  );
}

function SignIn({ error, onKey }: { error: string | null; onKey(k: string): void }) {
  const [value, setValue] = useState('');
  return (
    <main class="sign-in">
      <h1>KeepGraph provenance explorer</h1>
      <p>
        Enter an API key (<code>kgk_…</code>) or a JWT. It is kept for this browser tab only and
        sent to this server with every request.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (value.trim()) onKey(value.trim());
        }}
      >
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autocomplete="off"
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
        />
        <button type="submit">Sign in</button>
      </form>
      {error ? (
        <p class="error" role="alert">
          That key was refused: {error}
        </p>
      ) : null}
    </main>
  );
}

function Shell({
  client,
  apiKey,
  who,
  signOut,
}: {
  client: Session['client'];
  apiKey: string;
  who: Identity;
  signOut(): void;
}) {
  const route = useRoute();
  const owners = useLoad(
    () =>
      who.owners === 'all'
        ? client.listOwners({ limit: 500 }).then((r) => r.owners.map((o) => o.ownerId))
        : Promise.resolve([...who.owners]),
    [client],
  );
  const fromRoute = route.params.get('owner');
  const owner = fromRoute ?? owners.data?.[0] ?? null;
  const session: Session = {
    client,
    apiKey,
    who,
    owner,
    setOwner: (o) => navigate(route.view, { ...Object.fromEntries(route.params), owner: o }),
    signOut,
  };
  return (
    <SessionContext.Provider value={session}>
      <header class="top">
        <a class="brand" href={href('overview', { owner: owner ?? undefined })}>
          KeepGraph
        </a>
        <nav aria-label="Views">
          {NAV.map((n) => (
            <a
              href={href(n.view, { owner: owner ?? undefined })}
              aria-current={route.view === n.view ? 'page' : undefined}
            >
              {n.label}
            </a>
          ))}
        </nav>
        <div class="who">
          <label for="owner-pick">Owner</label>
          <OwnerPicker
            id="owner-pick"
            owners={owners.data ?? []}
            owner={owner}
            onPick={session.setOwner}
          />
          <span class="muted" data-testid="identity">
            {who.principal} · {who.role}
          </span>
          <button type="button" class="link" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="view" data-view={route.view}>
        {owners.error ? (
          <p class="error" role="alert">
            {owners.error}
          </p>
        ) : null}
        <View view={route.view} params={route.params} owner={owner} />
      </main>
    </SessionContext.Provider>
  );
}

function OwnerPicker(p: {
  id: string;
  owners: string[];
  owner: string | null;
  onPick(o: string): void;
}) {
  const [typed, setTyped] = useState(p.owner ?? '');
  useEffect(() => setTyped(p.owner ?? ''), [p.owner]);
  return (
    <>
      <input
        id={p.id}
        list={`${p.id}-list`}
        value={typed}
        placeholder="owner id"
        onInput={(e) => setTyped(e.currentTarget.value)}
        onChange={(e) => e.currentTarget.value.trim() && p.onPick(e.currentTarget.value.trim())}
      />
      <datalist id={`${p.id}-list`}>
        {p.owners.map((o) => (
          <option value={o} />
        ))}
      </datalist>
    </>
  );
}

function View({
  view,
  params,
  owner,
}: {
  view: ViewName;
  params: URLSearchParams;
  owner: string | null;
}) {
  if (view === 'queues') return <Queues />;
  if (view === 'audit') return <Audit owner={owner} />;
  if (!owner)
    return (
      <p class="empty">
        No owner yet: type an owner id above. An all-owners key lists the owners that hold memories.
      </p>
    );
  switch (view) {
    case 'overview':
      return <Overview owner={owner} />;
    case 'search':
      return <Search owner={owner} params={params} />;
    case 'graph':
      return <GraphView owner={owner} id={params.get('id')} />;
    case 'source':
      return <SourceView owner={owner} params={params} />;
    case 'reads':
      return <Reads owner={owner} id={params.get('id')} />;
  }
}
