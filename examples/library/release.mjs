// A workflow module: a command, then a TypeScript/JavaScript function step whose return
// value becomes the stage output, then a branch on it. Run it with `npx weft run release.mjs`
// or from code (embed-runs.mjs).
import { defineWorkflow } from 'weft-runtime/workflow';

export default defineWorkflow({
  workflow: { name: 'release', description: 'Count the changes, then decide' },
  // Nothing here writes files, so the run works right where it is started instead of in a
  // git worktree on a branch of whatever repository holds this folder. See docs/workspaces.md.
  run: { workspace: { mode: 'in-place' } },
  inputs: { version: { default: '1.0.0' } },
  nodes: {
    changes: { kind: 'command', run: 'printf "fix: a\\nfeat: b\\nfix: c\\n"', next: 'count' },
    count: {
      kind: 'function',
      run: ({ stages }) => {
        const lines = String(stages.changes.output).split('\n');
        return {
          fixes: lines.filter((line) => line.startsWith('fix:')).length,
          features: lines.filter((line) => line.startsWith('feat:')).length,
        };
      },
      next: 'decide',
    },
    decide: { kind: 'branch', edges: [{ to: 'minor', when: 'stages.count.output.features > 0' }, { to: 'patch' }] },
    minor: { kind: 'command', run: 'echo "{{ inputs.version }}: minor release"' },
    patch: { kind: 'command', run: 'echo "{{ inputs.version }}: patch release"' },
  },
});
