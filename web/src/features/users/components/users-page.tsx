import { useId, useRef, useState, type FormEvent } from 'react';
import type { Schemas } from '@/lib/api-client';
import type { Caller } from '../utils/user-actions';
import { CreateUserForm } from './create-user-form';
import { ShownPassword } from './shown-password';
import { UsersTable } from './users-table';
import './users.css';

/**
 * UsersPage is the organisation's users, for org admins: search them, create
 * one (a generated password shown once), disable or enable one, grant or take
 * the org admin role and reset a password, each after a confirmation. Others
 * get a note; the API answers them 403 anyway.
 */
export function UsersPage({ me }: { me: Schemas['Me'] }) {
  const orgAdmin = me.user.is_admin && !me.token?.project_id;
  const caller: Caller = { id: me.user.id, session: !me.token };
  const [q, setQ] = useState('');
  const [created, setCreated] = useState<Schemas['UserCreated']>();
  return (
    <div className="stack">
      <h1 style={{ margin: 0 }}>Users</h1>
      <p className="muted" style={{ margin: 0 }}>
        Everyone in the organisation. Their role in each project is set on its Members page.
      </p>
      {orgAdmin ? (
        <>
          <UserSearch onSearch={setQ} />
          {created && <CreatedUser created={created} onDone={() => setCreated(undefined)} />}
          <UsersTable q={q} caller={caller} />
          <CreateUserForm onCreated={setCreated} />
        </>
      ) : (
        <p className="muted" role="note" style={{ margin: 0 }}>
          Only organisation admins can see and manage users.
        </p>
      )}
    </div>
  );
}

/** UserSearch filters the list by a text in the email or name, on submit. */
function UserSearch({ onSearch }: { onSearch: (q: string) => void }) {
  const [text, setText] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const id = useId();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSearch(text.trim());
  };
  return (
    <form role="search" aria-label="Search users" className="row users-search" onSubmit={submit}>
      <label htmlFor={`${id}-q`} className="sr-only">
        Email or name contains
      </label>
      <input ref={input} id={`${id}-q`} type="search" value={text} maxLength={254} placeholder="Email or name" onChange={(e) => setText(e.target.value)} />
      <button type="submit">Search</button>
      {text !== '' && (
        <button type="button" onClick={() => { setText(''); onSearch(''); input.current?.focus(); }}>
          Clear
        </button>
      )}
    </form>
  );
}

/** CreatedUser says a user was created and shows their generated password once. */
function CreatedUser({ created, onDone }: { created: Schemas['UserCreated']; onDone: () => void }) {
  const id = useId();
  return (
    <section className="card stack" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} style={{ margin: 0, fontSize: 16 }}>
        User {created.user.email} created
      </h2>
      {created.password ? (
        <ShownPassword email={created.user.email} password={created.password} />
      ) : (
        <p style={{ margin: 0 }}>They sign in with the password you chose.</p>
      )}
      <div className="row">
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
    </section>
  );
}
