/**
 * The workflow file layer: load and validate workflow files, choose edges, evaluate
 * conditions, render templates. See docs/workflow-format.md. Drawing the graph
 * (`render-graph.ts`) is imported on its own: it loads the layout library, which running
 * a workflow never needs.
 */
export { loadWorkflow, formatProblems } from './load-workflow.js';
export { validateWorkflowText, type WorkflowValidation } from './validate-workflow.js';
export { selectEdge } from './select-edge.js';
export { compileCondition, evaluateCondition, type CompiledCondition, type CompileResult, type ConditionAst } from './condition.js';
export { renderTemplate, resolveArgs, scanTemplate, type TemplateReference, type TemplateScan } from './template.js';
export { keyTemplateProblems, resolveConcurrency } from './concurrency-keys.js';
export * from './types.js';
