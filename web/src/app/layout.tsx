import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo } from 'react';
import { NavLink, Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { Loading, ErrorState } from '@/components/ui/states';
import { useMe } from '@/features/auth/api/get-me';
import { useLogout } from '@/features/auth/api/logout';
import { useLogoutAll } from '@/features/auth/api/logout-all';
import { ApiError, onSignedOut } from '@/lib/api-client';
import { setProject, useProject } from '@/lib/project';

const links = [
  ['/runs', 'Runs'],
  ['/runs/new', 'New run'],
  ['/compare', 'Compare'],
  ['/tests', 'Tests'],
  ['/sync', 'Sync'],
  ['/agents', 'Agents'],
  ['/members', 'Members'],
  ['/settings', 'Settings'],
] as const;

/** Layout is the signed-in shell: navigation, project choice and the page. */
export function Layout() {
  const me = useMe();
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

  if (me.isPending) return <Loading />;
  if (me.error instanceof ApiError && me.error.status === 401) {
    return <Navigate to={`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  }
  if (me.error) return <ErrorState error={me.error} retry={() => me.refetch()} />;

  return (
    <div className="shell">
      <nav className="nav" aria-label="Main">
        <div className="brand">
          <img src="/favicon.svg" alt="" width={22} height={22} /> Barrage
        </div>
        {links.map(([to, text]) => (
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
          <span className="muted" title={me.data.user.email}>
            {me.data.user.name || me.data.user.email}
          </span>
          <button className="link" onClick={() => logout.mutate(undefined, { onSettled: () => navigate('/sign-in') })}>
            Sign out
          </button>
          {!me.data.token && (
            <button className="link" title="End every session of your account, on every device; API tokens keep working"
              onClick={() => logoutAll.mutate(undefined, { onSettled: () => navigate('/sign-in') })}>
              Sign out everywhere
            </button>
          )}
        </div>
      </nav>
      <main className="main">{project ? <Outlet /> : <Loading label="Loading projects…" />}</main>
    </div>
  );
}
