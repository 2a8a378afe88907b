/**
 * The workflow file layer: load and validate workflow files, choose edges, evaluate
 * conditions, render templates and draw the graph. See docs/workflow-format.md.
 */
export { loadWorkflow, formatProblems } from './load-workflow.js';
export { validateWorkflowText, type WorkflowValidation } from './validate-workflow.js';
export { selectEdge } from './select-edge.js';
export { compileCondition, evaluateCondition, type CompiledCondition, type CompileResult, type ConditionAst } from './condition.js';
export { renderTemplate, resolveArgs, scanTemplate, type TemplateReference, type TemplateScan } from './template.js';
export { renderGraph, type GraphFormat, type NodeState } from './render-graph.js';
export * from './types.js';
