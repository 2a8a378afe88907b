/**
 * The span of one tool call (GenAI `execute_tool`): which tool, whose (built-in, weft's own
 * or an MCP server's, with the server's name), the call id and how it ended. Arguments and
 * results stay out of the trace; a failed call carries the first line of its error, redacted.
 */
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_MCP_METHOD_NAME,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
} from '../core/telemetry/gen-ai.js';
import { recordFailure, setSpanAttributes, startSpan, type Span, type TraceContext } from '../core/telemetry/tracing.js';
import { resultText, type Tool, type ToolResult } from './tool.js';

/** `error.type` of a call that came back as an error result. */
export const TOOL_ERROR_TYPE = 'tool_error';

const NO_ATTRIBUTES = {};

/**
 * @example const span = startToolCallSpan('mcp__memory__read_graph', 'call_1', registry.get(name), session.traceContext);
 */
export function startToolCallSpan(name: string, callId: string, tool: Tool | undefined, parent: TraceContext | undefined): Span {
  const span = startSpan(`${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${name}`, NO_ATTRIBUTES, parent);
  // Without a recording provider a span is a no-op: the attributes are not even built.
  if (span.isRecording()) {
    setSpanAttributes(span, {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
      [ATTR_GEN_AI_TOOL_NAME]: name,
      [ATTR_GEN_AI_TOOL_CALL_ID]: callId,
      // `extension`: runs outside the agent, behind an API (an MCP server); `function`: in weft's process.
      [ATTR_GEN_AI_TOOL_TYPE]: tool?.source === 'mcp' ? 'extension' : 'function',
      'weft.tool.source': tool?.source,
      'weft.mcp.server': tool?.server,
      ...(tool?.source === 'mcp' ? { [ATTR_MCP_METHOD_NAME]: 'tools/call' } : {}),
    });
  }
  return span;
}

/** Ends a tool call's span with its outcome. */
export function endToolCallSpan(span: Span, result: ToolResult): void {
  if (span.isRecording()) {
    setSpanAttributes(span, {
      'weft.tool.is_error': result.isError,
      ...(result.artifactPath === undefined ? {} : { 'weft.tool.output_truncated': true }),
    });
    if (result.isError) recordFailure(span, TOOL_ERROR_TYPE, resultText(result).split('\n', 1)[0] ?? '');
  }
  span.end();
}
