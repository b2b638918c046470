import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import local from './scripts/eslint/dependency-direction.js';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'plugin/dist/**', 'plugin/hooks/*.js', 'plugin/mcp/*.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { local },
    rules: {
      'local/dependency-direction': 'error',
      'no-restricted-syntax': ['error', { selector: 'ExportAllDeclaration', message: 'Use explicit named exports (STYLE.md: no export *).' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
    },
  },
  {
    // Entry points that own a terminal may print.
    files: ['cli/**', 'scripts/**', 'test/**', 'hooks/**', 'tui/**'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['scripts/**/*.js', 'scripts/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
