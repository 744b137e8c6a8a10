import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const noVscode = { name: 'vscode', message: 'src/extension/core, src/agent and src/shared must not import vscode; put VS Code glue in src/extension/vscode.' };
const noAgent = { regex: '^(\\.\\./)+agent/', message: 'The host and the built-in agent share only src/shared (the agent protocol): import the contract from there.' };
const noExtension = { regex: '^(\\.\\./)+extension/', message: 'The built-in agent and the shared contract never import the extension host: move what both need into src/shared.' };
/**
 * src/extension/core imports only itself and src/shared: from a file `depth` folders below core, a specifier that
 * climbs out of core (depth + 1 times `../`) must go on to `../shared`. One config block per depth, as a pattern
 * cannot know where the importing file is (deeper files keep the rules above; the architecture test covers them all).
 */
const coreOnlyShared = (depth) => ({
  regex: `^(\\.\\./){${depth + 1}}(?!\\.\\./shared(/|$))`,
  message: 'src/extension/core imports only core and src/shared: move the fact both sides need into src/shared or into core (docs/architecture.md).',
});
const coreDepths = [0, 1, 2, 3];

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', 'sample/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: false }],
    },
  },
  // Functions a reader can hold at once (issue 27): at most 80 lines, counted as wc does. The few still longer say
  // why with an eslint-disable comment naming the rule, so the list cannot grow unseen.
  {
    files: ['src/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }] },
  },
  // Dependency rules (docs/architecture.md): the host and the built-in agent meet only in src/shared; the
  // domain core, the agent and the shared contract run on plain Node and are tested without VS Code.
  {
    files: ['src/extension/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noAgent] }] },
  },
  {
    files: ['src/extension/core/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [noVscode], patterns: [noAgent] }] },
  },
  ...coreDepths.map((depth) => ({
    files: [['src/extension/core', ...Array(depth).fill('*'), '*.ts'].join('/')],
    rules: { 'no-restricted-imports': ['error', { paths: [noVscode], patterns: [noAgent, coreOnlyShared(depth)] }] },
  })),
  {
    files: ['src/agent/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [noVscode], patterns: [noExtension] }] },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [noVscode], patterns: [noAgent, noExtension] }] },
  },
  {
    // Plain Node scripts and fixture processes (agents, servers) written in JavaScript.
    files: ['**/*.mjs', '**/*.cjs', '**/*.js'],
    languageOptions: { globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
