import type { Schemas } from '@/lib/api-client';
import { authText, remoteWriteDraftOf, remoteWriteErrorsOf, toRemoteWritePut, type RemoteWriteDraft } from './remote-write-form';

const stored: Schemas['RemoteWrite'] = {
  url: 'https://prom.example/api/v1/write', header_names: ['X-Scope-OrgID'], auth: 'bearer', username: '', enabled: true,
  updated_at: '2026-01-01T00:00:00Z',
};
const blank = remoteWriteDraftOf(null);
const draft = (over: Partial<RemoteWriteDraft>): RemoteWriteDraft => ({ ...blank, url: 'http://127.0.0.1:9090/api/v1/write', ...over });

describe('remoteWriteDraftOf', () => {
  it('starts from the stored endpoint with every secret blank', () => {
    expect(remoteWriteDraftOf(stored)).toEqual({
      url: 'https://prom.example/api/v1/write', enabled: true, auth: 'bearer', username: '', password: '', token: '',
      headers: [{ name: 'X-Scope-OrgID', value: '', stored: true }],
    });
    expect(blank).toEqual({ url: '', enabled: true, headers: [], auth: 'none', username: '', password: '', token: '' });
  });
});

describe('toRemoteWritePut', () => {
  it('sends the URL, the headers and the chosen credentials', () => {
    expect(toRemoteWritePut(draft({ auth: 'bearer', token: 's3cret', headers: [{ name: ' X-Tenant ', value: 't1', stored: false }, { name: '', value: '', stored: false }] }), null)).toEqual({
      ok: true,
      body: { url: 'http://127.0.0.1:9090/api/v1/write', enabled: true, headers: { 'X-Tenant': 't1' }, bearer_token: 's3cret' },
    });
    expect(toRemoteWritePut(draft({ auth: 'basic', username: 'prom', password: 'pw', enabled: false }), null)).toEqual({
      ok: true,
      body: { url: 'http://127.0.0.1:9090/api/v1/write', enabled: false, basic_auth: { username: 'prom', password: 'pw' } },
    });
    // Credentials typed and then switched off are not sent.
    expect(toRemoteWritePut(draft({ auth: 'none', token: 'left over', username: 'u' }), null)).toEqual({
      ok: true,
      body: { url: 'http://127.0.0.1:9090/api/v1/write', enabled: true },
    });
  });

  it('refuses a URL the API would refuse', () => {
    const urlError = (url: string) => {
      const r = toRemoteWritePut(draft({ url }), null);
      return r.ok ? undefined : r.errors.url;
    };
    expect(urlError('')).toBe('is required');
    expect(urlError('prom:9090')).toBe('must be an http or https URL');
    expect(urlError('not a url')).toBe('is not a URL: give e.g. https://prometheus.example/api/v1/write');
    expect(urlError('https://u:p@prom.example/')).toBe('must not hold credentials: give them under Authentication');
  });

  it('asks for the secrets the API holds again, since a save replaces them', () => {
    const r = toRemoteWritePut({ ...remoteWriteDraftOf(stored) }, stored);
    expect(r).toEqual({
      ok: false,
      errors: {
        header: { 0: { value: 'a value is set; the API never shows it: enter it again to save' } },
        token: 'a token is set; the API never shows it: enter it again to save',
      },
    });
  });

  it('names each wrong header and basic auth without a username', () => {
    const r = toRemoteWritePut(
      draft({
        auth: 'basic',
        username: 'a:b',
        headers: [
          { name: 'Authorization', value: 'x', stored: false },
          { name: 'bad name', value: 'x', stored: false },
          { name: 'X-A', value: 'x', stored: false },
          { name: 'x-a', value: 'y', stored: false },
          { name: 'X-B', value: '', stored: false },
        ],
      }),
      null,
    );
    expect(r).toEqual({
      ok: false,
      errors: {
        username: 'is required for basic auth, without a colon',
        header: {
          0: { name: 'is set by Barrage: give credentials under Authentication' },
          1: { name: 'is not an HTTP header name' },
          3: { name: 'is listed twice' },
          4: { value: 'is required' },
        },
      },
    });
  });
});

describe('remoteWriteErrorsOf', () => {
  it('places the API field errors, a header by its name', () => {
    const rows = [{ name: 'X-Tenant', value: 'v', stored: false }];
    expect(
      remoteWriteErrorsOf(
        [
          { field: 'url', message: 'refused by the target policy' },
          { field: 'headers.X-Tenant', message: 'too long' },
          { field: 'bearer_token', message: 'too long' },
          { field: 'basic_auth.username', message: 'required' },
          { field: 'enabled', message: 'odd' },
        ],
        rows,
      ),
    ).toEqual({
      fields: { url: 'refused by the target policy', header: { 0: { name: 'too long' } }, token: 'too long', username: 'required' },
      other: ['enabled: odd'],
    });
  });
});

describe('authText', () => {
  it('says a secret is set, never what it is', () => {
    expect(authText(stored)).toBe('Bearer token set');
    expect(authText({ ...stored, auth: 'basic', username: 'prom' })).toBe('Basic auth as prom (password not shown)');
    expect(authText({ ...stored, auth: 'none' })).toBe('None');
  });
});
