/**
 * The one table from node kind to executor, and the dry-run stand-ins that check a stage
 * without side effects.
 */
import { spawnSync } from 'node:child_process';
import { checkAgainstSchema } from '../../core/json-schema.js';
import { loadWorkflow, renderTemplate, resolveArgs, type WorkflowNode } from '../workflow/index.js';
import { executeChildNode } from './nodes/child-node.js';
import { executeCommandNode } from './nodes/command-node.js';
import { executeBranchNode, executeJoinNode, executeParallelNode } from './nodes/flow-nodes.js';
import { executeFunctionNode } from './nodes/function-node.js';
import { executeHumanNode } from './nodes/human-node.js';
import { executeLlmNode } from './nodes/llm-nodes.js';
import { executeToolNode } from './nodes/tool-node.js';
import { executeWaitNode } from './nodes/wait-node.js';
import type { StageResult, StageRun } from './stage-context.js';

export function executeNode(stage: StageRun): Promise<StageResult> {
  const node = stage.node;
  switch (node.kind) {
    case 'command':
      return executeCommandNode({ ...stage, node });
    case 'tool':
      return executeToolNode({ ...stage, node });
    case 'human':
      return executeHumanNode({ ...stage, node });
    case 'branch':
      return executeBranchNode({ ...stage, node });
    case 'parallel':
      return executeParallelNode({ ...stage, node });
    case 'join':
      return executeJoinNode({ ...stage, node });
    case 'child':
      return executeChildNode({ ...stage, node });
    case 'wait':
      return executeWaitNode({ ...stage, node });
    case 'function':
      return executeFunctionNode({ ...stage, node });
    case 'agent':
    case 'prompt':
      return executeLlmNode({ ...stage, node });
    default: {
      const unknown: never = node;
      return Promise.resolve({ status: 'failed', error: `unknown node kind ${(unknown as WorkflowNode).kind}` });
    }
  }
}

/** Checks what a stage would do — templates render, scripts parse, tools exist and accept the arguments, agents have a usable model — and does nothing. */
export async function dryRunNode(stage: StageRun): Promise<StageResult> {
  const node = stage.node;
  switch (node.kind) {
    case 'command': {
      const script = renderTemplate(node.run, stage.context);
      const check = spawnSync('/bin/bash', ['-n', '-c', script], { encoding: 'utf8' });
      return check.status === 0
        ? { status: 'succeeded', output: `(dry run) ${script}`, exitCode: 0 }
        : { status: 'failed', error: `script does not parse: ${check.stderr.trim()}` };
    }
    case 'tool': {
      const toolbox = await stage.services.toolbox();
      const tool = toolbox.registry.get(node.tool);
      if (!tool) return { status: 'failed', error: `tool '${node.tool}' does not exist (is its MCP server configured and running?)` };
      const args = resolveArgs(node.args, stage.context);
      const check = checkAgainstSchema(tool.inputSchema, args);
      return check.ok
        ? { status: 'succeeded', output: `(dry run) ${node.tool}` }
        : { status: 'failed', error: `arguments for '${node.tool}': ${check.problems.join('; ')}` };
    }
    case 'child':
      await loadWorkflow(node.workflow);
      return { status: 'succeeded', output: { runId: null, status: 'succeeded' } };
    case 'human': {
      const answer =
        node.type === 'yes_no' || node.type === 'confirmation' ? true : node.type === 'multi_select' ? [] : (node.options?.[0] ?? '');
      renderTemplate(node.question, stage.context);
      return { status: 'succeeded', output: answer, answer };
    }
    case 'wait':
      return { status: 'succeeded', output: null };
    case 'function':
      return { status: 'succeeded', output: `(dry run) function ${node.name}` };
    case 'agent':
    case 'prompt': {
      renderTemplate(node.prompt, stage.context);
      const checked = await stage.services.agent?.checkStage?.(stage);
      return checked ?? { status: 'succeeded', output: `(dry run) ${node.kind} stage` };
    }
    case 'branch':
    case 'parallel':
    case 'join':
      return executeNode(stage);
    default: {
      const unknown: never = node;
      return { status: 'failed', error: `unknown node kind ${(unknown as WorkflowNode).kind}` };
    }
  }
}
