import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import importPlugin from 'eslint-plugin-import';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const root = dirname(fileURLToPath(import.meta.url));

// One directory per feature under src/features; a feature may not import
// another (compose them in src/app instead). The list is read from the
// directory, so a new feature is covered the day it lands.
export const features = readdirSync(join(root, 'src/features'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'src/lib/api-schema.d.ts', 'test-results', 'playwright-report'] },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: { ecmaVersion: 2022, globals: { ...globals.browser, ...globals.node } },
    plugins: { 'react-hooks': reactHooks, import: importPlugin },
    // The TypeScript resolver reads tsconfig.json's paths, so '@/features/x/...'
    // resolves to src/features/x and the zones below see it.
    settings: { 'import/resolver': { typescript: { project: join(root, 'tsconfig.json') }, node: true } },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'import/no-restricted-paths': [
        'error',
        {
          zones: features.map((f) => ({
            target: join(root, 'src/features', f),
            from: join(root, 'src/features'),
            except: [`./${f}`],
            message: 'features do not import each other; compose them in src/app',
          })),
        },
      ],
    },
  },
);
