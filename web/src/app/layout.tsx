import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo } from 'react';
import { NavLink, Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { ApiUnreachableBanner } from '@/components/ui/api-unreachable-banner';
import { Loading, ErrorState } from '@/components/ui/states';
import { useAuthMethods } from '@/features/auth/api/get-auth-methods';
import { useMe } from '@/features/auth/api/get-me';
import { useLogout } from '@/features/auth/api/logout';
import { useLogoutAll } from '@/features/auth/api/logout-all';
import { ApiError, onSignedOut } from '@/lib/api-client';
import { setProject, useProject } from '@/lib/project';
import { ReadOnlyContext } from '@/lib/read-only';

const links = [
  ['/runs', 'Runs'],
  ['/runs/new', 'New run'],
  ['/compare', 'Compare'],
  ['/tests', 'Tests'],
  ['/searches', 'Searches'],
  ['/sync', 'Sync'],
  ['/agents', 'Agents'],
  ['/echo-profiles', 'Echo profiles'],
  ['/members', 'Members'],
  ['/settings', 'Settings'],
  ['/tokens', 'API tokens'],
  ['/audit', 'Audit log'],
  ['/users', 'Users'],
] as const;

/** orgAdminLinks are the pages of org admins with unscoped credentials only. */
const orgAdminLinks = new Set<string>(['/users']);

/** readOnlyLinks are the pages of a read-only server: browse, results, compare. */
const readOnlyLinks = new Set<string>(['/runs', '/compare', '/tests']);

/**
 * Layout is the signed-in shell: navigation, project choice and the page. On
 * a read-only server nobody signs in: it shows the public projects' results
 * and no control that would change anything.
 */
export function Layout() {
  const me = useMe();
  const methods = useAuthMethods();
  const readOnly = methods.data?.read_only === true;
  const project = useProject();
  const location = useLocation();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const logout = useLogout();
  const logoutAll = useLogoutAll();

  useEffect(
    () =>
      onSignedOut(() => {
        qc.clear();
        navigate(`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`, { replace: true });
      }),
    [qc, navigate, location],
  );

  const projects = useMemo(() => me.data?.projects ?? [], [me.data]);
  useEffect(() => {
    if (projects.length > 0 && !projects.some((p) => p.project.slug === project)) {
      setProject(projects[0]!.project.slug);
    }
  }, [projects, project]);

  if (me.isPending || methods.isPending) return <Loading />;
  if (me.error instanceof ApiError && me.error.status === 401) {
    return <Navigate to={`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  }
  // A failed refetch keeps the shell: the banner says the API cannot be reached.
  if (me.error && !me.data) return <ErrorState error={me.error} retry={() => me.refetch()} />;
  const orgAdmin = me.data.user.is_admin && !me.data.token?.project_id;

  return (
    <div className="shell">
      <nav className="nav" aria-label="Main">
        <div className="brand">
          <img src="/favicon.svg" alt="" width={22} height={22} /> Barrage
        </div>
        {readOnly && (
          <span className="muted" role="note" title="This server serves results only: nothing can be started, stopped or changed here">
            Read-only
          </span>
        )}
        {links.filter(([to]) => (!readOnly || readOnlyLinks.has(to)) && (orgAdmin || !orgAdminLinks.has(to))).map(([to, text]) => (
          <NavLink key={to} to={to} end={to === '/runs'}>
            {text}
          </NavLink>
        ))}
        <div className="foot">
          {projects.length > 0 && (
            <label className="field">
              <span className="sr-only">Project</span>
              <select aria-label="Project" value={project} onChange={(e) => setProject(e.target.value)}>
                {projects.map((p) => (
                  <option key={p.project.id} value={p.project.slug}>
                    {p.project.name} ({p.role})
                  </option>
                ))}
              </select>
            </label>
          )}
          {!readOnly && (
            <span className="muted" title={me.data.user.email}>
              {me.data.user.name || me.data.user.email}
            </span>
          )}
          {!readOnly && (
          <button className="link" onClick={() => logout.mutate(undefined, { onSettled: () => navigate('/sign-in') })}>
            Sign out
          </button>
          )}
          {!readOnly && !me.data.token && (
            <button className="link" title="End every session of your account, on every device; API tokens keep working"
              onClick={() => logoutAll.mutate(undefined, { onSettled: () => navigate('/sign-in') })}>
              Sign out everywhere
            </button>
          )}
        </div>
      </nav>
      <main className="main">
        <ApiUnreachableBanner />
        <ReadOnlyContext.Provider value={readOnly}>
          {project ? <Outlet /> : <Loading label={readOnly ? 'No public project yet…' : 'Loading projects…'} />}
        </ReadOnlyContext.Provider>
      </main>
    </div>
  );
}
