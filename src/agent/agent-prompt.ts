/**
 * What an agent or prompt stage says to the model: the system prompt (the node's own, or
 * a short default that tells the model where it works) and the first user message (the
 * run's goal, then the node's prompt). Templates are rendered with the run's context.
 */
import type { RunRecord } from '../runs/model/run-record.js';
import { renderTemplate, type AgentNode, type PromptNode, type Workflow, type WorkflowContext } from '../runs/workflow/index.js';

export function defaultSystemPrompt(params: {
  run: RunRecord;
  workflow: Workflow;
  node: AgentNode | PromptNode;
  workDir?: string;
}): string {
  const { run, workflow, node } = params;
  const lines = [`You are an agent in weft, running the stage '${node.name}' of the workflow '${workflow.name}'.`];
  if (node.kind === 'agent') {
    lines.push(
      `Your workspace is ${params.workDir ?? run.cwd}; file tools resolve paths inside it.`,
      'Use the tools to do the task, several at once when they do not depend on each other. A tool error is information: read it and adjust.',
      'When the task is done, reply with the result and no tool calls. If the task asks for JSON, reply with the JSON only.',
    );
  } else {
    lines.push('Answer the request directly. If it asks for JSON, reply with the JSON only.');
  }
  return lines.join('\n');
}

export function systemPrompt(params: {
  run: RunRecord;
  workflow: Workflow;
  node: AgentNode | PromptNode;
  context: WorkflowContext;
  workDir?: string;
}): string {
  return params.node.system === undefined ? defaultSystemPrompt(params) : renderTemplate(params.node.system, params.context);
}

/** The run's goal (when it has one) and the node's rendered prompt. */
export function firstMessage(params: { run: RunRecord; node: AgentNode | PromptNode; context: WorkflowContext }): string {
  const prompt = renderTemplate(params.node.prompt, params.context).trim();
  const goal = params.run.goal.trim();
  return goal === '' || prompt.includes(goal) ? prompt : `Goal of this run: ${goal}\n\n${prompt}`;
}

/**
 * The stage output for a final answer: the text, with a surrounding ```json fence removed
 * when what is inside is JSON, so conditions can read its fields (`output.ok`).
 */
export function stageOutputText(text: string): string {
  const fenced = /^```(?:json)?[ \t]*\n([\s\S]*?)\n?```$/.exec(text.trim());
  if (!fenced) return text;
  const inner = fenced[1]!.trim();
  try {
    JSON.parse(inner);
    return inner;
  } catch {
    return text;
  }
}
