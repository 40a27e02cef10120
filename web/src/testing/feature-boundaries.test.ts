// @vitest-environment node
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

// The feature-boundary rule of eslint.config.js, run through ESLint's Node
// API on fixture text placed (virtually) inside a feature: an import of
// another feature fails lint whether written with the '@/' alias or a
// relative path, and imports inside a feature or of shared code pass.
const root = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  const [res] = await eslint.lintText(code, { filePath });
  return (res?.messages ?? []).filter((m) => m.ruleId === 'import/no-restricted-paths').map((m) => m.message);
}

const use = (name: string) => `\nexport const used = ${name};\n`;

describe('the feature-boundary lint rule', () => {
  it('refuses an import of another feature through the @/ alias', async () => {
    const errors = await boundaryErrors('src/features/runs/fixture.ts', `import { testQuery } from '@/features/tests/api/get-test';${use('testQuery')}`);
    expect(errors).toEqual(['Unexpected path "@/features/tests/api/get-test" imported in restricted zone. features do not import each other; compose them in src/app']);
  });

  it('refuses a relative import of another feature', async () => {
    const errors = await boundaryErrors('src/features/runs/api/fixture.ts', `import { useMe } from '../../auth/api/get-me';${use('useMe')}`);
    expect(errors).toEqual(['Unexpected path "../../auth/api/get-me" imported in restricted zone. features do not import each other; compose them in src/app']);
  });

  it('covers features the old hand-written list missed', async () => {
    const errors = await boundaryErrors('src/features/members/fixture.ts', `import { searchesKey } from '@/features/searches/api/keys';${use('searchesKey')}`);
    expect(errors).toHaveLength(1);
  });

  it('lets a feature import itself, shared code, and the app compose features', async () => {
    expect(await boundaryErrors('src/features/runs/fixture.ts', `import { runQuery } from '@/features/runs/api/get-run';${use('runQuery')}`)).toEqual([]);
    expect(await boundaryErrors('src/features/runs/fixture.ts', `import { api } from '@/lib/api-client';${use('api')}`)).toEqual([]);
    expect(await boundaryErrors('src/app/routes/fixture.ts', `import { useMe } from '@/features/auth/api/get-me';${use('useMe')}`)).toEqual([]);
  });

  it('reads one zone per directory of src/features', async () => {
    const dirs = readdirSync(new URL('../features', import.meta.url), { withFileTypes: true }).filter((d) => d.isDirectory());
    const config = (await eslint.calculateConfigForFile('src/features/runs/fixture.ts')) as { rules: Record<string, [string, { zones: { target: string }[] }]> };
    const targets = config.rules['import/no-restricted-paths']![1].zones.map((z) => z.target.split(/[\\/]/).pop());
    expect(targets).toEqual(dirs.map((d) => d.name).sort());
    expect(targets).toEqual(expect.arrayContaining(['echo-profiles', 'members', 'searches', 'runs']));
  });
});
