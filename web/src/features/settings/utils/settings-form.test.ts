import { allowListErrorsOf, indexUrl, parseAllowList } from './settings-form';

describe('parseAllowList', () => {
  it('keeps trimmed non-blank lines and where each was', () => {
    expect(parseAllowList(' 10.0.0.0/8 \n\nfortio.lab:8080\n  \n127.0.0.1')).toEqual({
      entries: ['10.0.0.0/8', 'fortio.lab:8080', '127.0.0.1'],
      lines: [1, 3, 5],
    });
    expect(parseAllowList('')).toEqual({ entries: [], lines: [] });
  });
});

describe('allowListErrorsOf', () => {
  const sent = parseAllowList('10.0.0.0/8\n\nfortio.lab:8080\n169.254.169.254');
  it('names the line and entry of each wrong allow list entry', () => {
    expect(
      allowListErrorsOf(
        [
          { field: 'target_allow_list[2]', message: 'link-local and cloud metadata addresses are always refused' },
          { field: 'target_allow_list', message: 'at most 100 entries' },
          { field: 'name', message: 'too long' },
        ],
        sent,
      ),
    ).toEqual({
      list: ['line 4 (169.254.169.254): link-local and cloud metadata addresses are always refused', 'at most 100 entries'],
      other: ['name: too long'],
    });
  });
  it('keeps the message of an index it did not send', () => {
    expect(allowListErrorsOf([{ field: 'target_allow_list[9]', message: 'bad' }], sent).list).toEqual(['bad']);
  });
});

describe('indexUrl', () => {
  it('is the origin index.tsv for the project', () => {
    expect(indexUrl('https://barrage.example', 'team a')).toBe('https://barrage.example/fortio/data/index.tsv?project=team%20a');
  });
});
