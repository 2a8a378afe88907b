/**
 * A run's sandbox as the HTTP API, `weft_run_get` and the dashboard show it: whether it is
 * sandboxed, the one-line summary `weft inspect` prints, and the rules (snake_case, as
 * `[run.sandbox]` spells them).
 */
import * as z from 'zod';
import type { RunSandboxView } from '../services/run-sandbox-view.js';

export const runSandboxSchema = z
  .object({
    sandboxed: z.boolean().describe('Whether what the run executes runs inside the OS sandbox ([run.sandbox] mode = "os")'),
    summary: z.string().describe('One line: "none (…)", or "os — writes: …; unreadable: …; network: …"'),
    rules: z
      .object({
        mode: z.literal('os'),
        allow_write: z.array(z.string()).describe('Writable folders (absolute), besides a private /tmp'),
        deny_read: z.array(z.string()).describe('Hidden paths (absolute)'),
        network: z
          .union([z.literal('none'), z.object({ allow: z.array(z.string()) })])
          .describe('"none", or the hosts reachable through weft\'s proxy'),
        max_processes: z.number().int(),
      })
      .nullable()
      .describe('The rules, resolved against the folder the run works in; null when it is not sandboxed'),
  })
  .describe("The run's OS sandbox ([run.sandbox] of the settings, the workflow and the run)");
export type RunSandboxJson = z.infer<typeof runSandboxSchema>;

export function runSandboxJson(view: RunSandboxView): RunSandboxJson {
  const rules = view.rules;
  return {
    sandboxed: view.sandboxed,
    summary: view.summary,
    rules:
      rules === null
        ? null
        : {
            mode: rules.mode,
            allow_write: rules.allowWrite,
            deny_read: rules.denyRead,
            network: rules.network,
            max_processes: rules.maxProcesses,
          },
  };
}
