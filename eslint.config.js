// Lint: the recommended TypeScript rules, plus the layering rule that keeps imports pointing down the stack.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/results/**', 'docs/api/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        fetch: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        setImmediate: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // No skipped, focused or pending tests, plain or conditional (it.skipIf(...)(…), describe.only.each …).
      'no-restricted-syntax': [
        'error',
        {
          selector: 'MemberExpression[object.name=/^(it|test|describe|suite)$/][property.name=/^(skip|only|todo|skipIf|runIf)$/]',
          message: 'No skipped, focused or pending tests (.skip, .only, .todo, .skipIf, .runIf).',
        },
        {
          selector:
            "MemberExpression[object.type='MemberExpression'][object.object.name=/^(it|test|describe|suite)$/][property.name=/^(skip|only|todo|skipIf|runIf)$/]",
          message: 'No skipped, focused or pending tests (.skip, .only, .todo, .skipIf, .runIf).',
        },
      ],
    },
  },
  {
    // The dashboard's browser modules, served to the browser as they are.
    files: ['src/surfaces/dashboard/assets/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: {
        document: 'readonly',
        window: 'readonly',
        location: 'readonly',
        performance: 'readonly',
        FormData: 'readonly',
        URLSearchParams: 'readonly',
        Node: 'readonly',
        TextDecoderStream: 'readonly',
        sessionStorage: 'readonly',
        history: 'readonly',
        requestAnimationFrame: 'readonly',
        cancelAnimationFrame: 'readonly',
      },
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/tools/**', '**/mcp/**', '**/runs/**', '**/agent/**', '**/app/**', '**/surfaces/**'],
              message: 'core is the bottom layer; it imports no other layer.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/tools/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/mcp/**', '**/runs/**', '**/agent/**', '**/app/**', '**/surfaces/**'], message: 'tools may import only core.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/mcp/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/runs/**', '**/agent/**', '**/app/**', '**/surfaces/**'], message: 'mcp may import only core and tools.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/runs/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/agent/**', '**/app/**', '**/surfaces/**'], message: 'runs may import only core, tools and mcp.' }] },
      ],
    },
  },
  {
    files: ['src/agent/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/app/**', '**/surfaces/**'], message: 'agent may not import app or surfaces.' }] },
      ],
    },
  },
  {
    files: ['src/app/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/surfaces/**', '**/lib/**'], message: 'app is the composition root below the surfaces.' }] },
      ],
    },
  },
  {
    files: ['src/lib/**/*.ts'],
    ignores: ['src/lib/server.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/surfaces/**'], message: 'lib is a surface: it calls app and below, never another surface.' }] },
      ],
    },
  },
  {
    // weft-runtime/server mounts the HTTP and MCP server surfaces, through their entries only
    // (and reports their errors as the CLI does, through what the surfaces share).
    files: ['src/lib/server.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '/surfaces/(?!http/index\\.js$|mcp-server/index\\.js$|shared/loopback\\.js$|shared/server-error-report\\.js$)',
              message: 'weft-runtime/server mounts the HTTP and MCP server surfaces through their entries only.',
            },
          ],
        },
      ],
    },
  },
);
