// Lint: eslint's and typescript-eslint's recommended rules, plus the type-aware promise rules (a floating promise
// is a lost error or an unordered write here). Run by `npm test` after `tsc --noEmit`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'schemas/', 'deploy/', 'examples/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
      // Unused names are errors, except deliberate ones (`_x`) and the rest of a destructuring that drops keys.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // The journal, CSV and HTTP layers handle untyped JSON; `any` stays visible in review rather than banned.
      '@typescript-eslint/no-explicit-any': 'off',
      // `as never` silences every type check at once: allowed only with a disable comment saying why (`-- reason`).
      'no-restricted-syntax': ['error', {
        selector: 'TSAsExpression[typeAnnotation.type="TSNeverKeyword"]',
        message: '`as never` needs a comment why: // eslint-disable-next-line no-restricted-syntax -- <reason> (docs/conventions.md)',
      }],
    },
  },
  {
    // The bridge reaches the journal through its contract (src/journal/contract.ts): only the journal's own modules
    // know an engine, and the SQLite handle is for tests and bench/ (docs/journal.md).
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts', 'src/journal/**', 'src/config/schema.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['**/journal/sqlite/*', '**/journal/postgres/*'], message: 'engines stay behind the journal contract: import ../journal/index.js (docs/journal.md)' },
        { group: ['**/raw.js', '**/test-support.js'], message: 'tests and bench/ only: use the journal interfaces (docs/journal.md)' },
      ] }],
    },
  },
  {
    files: ['src/journal/**/*.ts'],
    ignores: ['src/**/*.test.ts', 'src/journal/journal.ts', 'src/journal/sqlite/raw.ts', 'src/journal/test-support.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/raw.js', '**/test-support.js'], message: 'tests and bench/ only: use the journal interfaces (docs/journal.md)' }] }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: Object.fromEntries(['process', 'console', 'Buffer', 'URL', 'performance', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'].map((name) => [name, 'readonly'])) },
  },
);
