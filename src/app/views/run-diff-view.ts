/**
 * A run's or one stage's changes as the HTTP API, the MCP server and the dashboard show
 * them (snake_case, one schema): the commits compared, the files with lines added and
 * removed, and the unified diff text unless only the stat was asked for.
 */
import * as z from 'zod';
import type { RunDiff } from '../services/workspace-service.js';

export const runDiffSchema = z.object({
  run_id: z.string(),
  branch: z.string().describe('The run branch, weft/runs/<id>'),
  stage_id: z.string().nullable().describe('The stage whose checkpoint this is; null for the whole run'),
  unchanged: z.boolean().describe('True when that stage changed no file (it made no checkpoint)'),
  from: z.string().describe('The commit compared from (the run base, or the checkpoint before the stage)'),
  to: z.string().describe("The commit compared to (the run branch's tip, or the stage's checkpoint)"),
  files_changed: z.number().int(),
  lines_added: z.number().int(),
  lines_removed: z.number().int(),
  files: z.array(
    z.object({
      path: z.string(),
      status: z.string().describe('A added, M modified, D deleted, T type changed'),
      added: z.number().int(),
      removed: z.number().int(),
      binary: z.boolean(),
    }),
  ),
  text: z.string().nullable().describe('Unified diff; null with stat=true'),
  truncated: z.boolean().describe('True when the text was cut (see it whole with git diff <from> <to>)'),
});

export type RunDiffView = z.output<typeof runDiffSchema>;

export function runDiffView(diff: RunDiff): RunDiffView {
  return {
    run_id: diff.runId,
    branch: diff.branch,
    stage_id: diff.stageId ?? null,
    unchanged: diff.unchanged,
    from: diff.from,
    to: diff.to,
    files_changed: diff.filesChanged,
    lines_added: diff.linesAdded,
    lines_removed: diff.linesRemoved,
    files: diff.files.map(({ path, status, added, removed, binary }) => ({ path, status, added, removed, binary })),
    text: diff.text ?? null,
    truncated: diff.truncated,
  };
}
