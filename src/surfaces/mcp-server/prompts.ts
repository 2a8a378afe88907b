/**
 * weft's MCP prompts, which clients such as Claude Code show as slash commands:
 * `weft_start_workflow` (start a workflow and see it through) and `weft_review_run`
 * (review a run's state and propose next steps). Arguments complete from the workflow
 * files in the server's directory and from recent run ids.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { completable, type GetPromptResult, type McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { completeRunId } from './complete-run-id.js';
import { toProtocolError } from './error-codes.js';
import { questionView, runSummary } from '../../app/views/run-view.js';
import type { McpServerDeps } from './tool-kit.js';

async function workflowFiles(cwd: string, prefix: string): Promise<string[]> {
  const found: string[] = [];
  for (const dir of ['.', 'workflows']) {
    const entries = await readdir(join(cwd, dir), { withFileTypes: true }).catch(() => []);
    for (const entry of entries)
      if (entry.isFile() && entry.name.endsWith('.toml')) found.push(dir === '.' ? entry.name : `${dir}/${entry.name}`);
  }
  return found
    .filter((file) => file.startsWith(prefix))
    .sort()
    .slice(0, 50);
}

function userText(text: string): GetPromptResult {
  return { messages: [{ role: 'user', content: { type: 'text', text } }] };
}

export function registerPrompts(server: McpServer, deps: McpServerDeps): void {
  server.registerPrompt(
    'weft_start_workflow',
    {
      title: 'Start a weft workflow',
      description: 'Create a run of a workflow file with a goal, approve it, follow it to the end and report the outcome',
      argsSchema: z.object({
        workflow: completable(z.string().describe('Workflow file (TOML), relative to the server directory'), (value) =>
          workflowFiles(deps.cwd, value),
        ),
        goal: z.string().optional().describe("What the run is for (default: the workflow's own goal)"),
      }),
    },
    ({ workflow, goal }) => {
      const run: Record<string, unknown> = { workflow, ...(goal ? { goal } : {}) };
      return userText(
        [
          `Start the weft workflow \`${workflow}\`${goal ? ` with this goal:\n\n${goal}\n` : '.'}`,
          '',
          `1. Call weft_run_create with {"runs": [${JSON.stringify(run)}]}.`,
          '2. If the run is "pending", tell me what it will do and ask whether to approve it; approve with weft_run_interact {"action": "approve"} once I agree.',
          '3. Follow it with weft_run_gather (timeout_seconds 60, again while it runs). When it is "blocked", read its questions (weft_run_interact "get_questions"), ask me, and answer with action "answer".',
          '4. When it ends, summarise the outcome; if it failed, read the failing stage with weft_run_events (action "search", query "failed") and propose a fix or a retry.',
        ].join('\n'),
      );
    },
  );

  server.registerPrompt(
    'weft_review_run',
    {
      title: 'Review a weft run',
      description: "Explain a run's state, what happened, what it waits for, and the sensible next step",
      argsSchema: z.object({
        run_id: completable(z.string().describe('The run to review (ULID)'), (value) => completeRunId(deps, value)),
      }),
    },
    async ({ run_id }) => {
      try {
        const runs = await deps.runs();
        const run = await runs.get(run_id);
        const questions = await runs.questions(run.id, true);
        const state = JSON.stringify({ run: runSummary(run), pending_questions: questions.map(questionView) }, null, 2);
        return userText(
          [
            `Review weft run ${run.id} (${run.workflow}, ${run.status}). Its current state:`,
            '',
            '```json',
            state,
            '```',
            '',
            'Read its events with weft_run_events (action "list", direction "desc"; "search" for errors) to see what happened stage by stage.',
            'Then tell me: what it was for, how far it got, what failed or what it waits for (approval, questions), and the next step — approve, answer, retry, cancel or archive — with the weft_run_interact call you would make. Do not change the run until I agree.',
          ].join('\n'),
        );
      } catch (error) {
        throw toProtocolError(error);
      }
    },
  );
}
