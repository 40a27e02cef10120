import type { Schemas } from '@/lib/api-client';
import { isOrgAdmin, roleIn } from './get-me';

const project = (slug: string): Schemas['Project'] => ({
  id: `id-${slug}`, slug, name: slug, description: '', public_results: false, target_allow_list: [], target_allow_granted: [], retention: {},
  limits: {
    max_qps: 1000, max_connections: 50, max_duration: '10m0s', max_agents: 4, max_concurrent_runs: 20, overridden: [],
    deployment: { max_qps: 1000, max_connections: 50, max_duration: '10m0s', max_agents: 4, max_concurrent_runs: 20 },
  },
  created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
});

describe('roleIn', () => {
  const me: Schemas['Me'] = {
    user: { id: 'u', email: 'a@b', name: 'A', is_admin: false },
    projects: [
      { project: project('default'), role: 'runner' },
      { project: project('infra'), role: 'admin' },
    ],
  };
  it('is the role /me gives for the project', () => {
    expect(roleIn(me, 'default')).toBe('runner');
    expect(roleIn(me, 'infra')).toBe('admin');
  });
  it('is undefined for another project or before /me answers', () => {
    expect(roleIn(me, 'other')).toBeUndefined();
    expect(roleIn(undefined, 'default')).toBeUndefined();
  });
});

describe('isOrgAdmin', () => {
  const user = { id: 'u', email: 'a@b', name: 'A', is_admin: true };
  it('is an org admin signed in or on an unscoped token', () => {
    expect(isOrgAdmin({ user, projects: [] })).toBe(true);
    expect(isOrgAdmin({ user, projects: [], token: { id: 't' } })).toBe(true);
  });
  it('is not a project token of an org admin, another user, or before /me answers', () => {
    expect(isOrgAdmin({ user, projects: [], token: { id: 't', project_id: 'p', role: 'admin' } })).toBe(false);
    expect(isOrgAdmin({ user: { ...user, is_admin: false }, projects: [] })).toBe(false);
    expect(isOrgAdmin(undefined)).toBe(false);
  });
});
