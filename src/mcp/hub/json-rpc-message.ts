/**
 * Reads one JSON-RPC message from a stdio line with the SDK's own schemas, but picks the
 * one schema the message's keys allow instead of trying the SDK's four-way union in turn.
 * The union (`deserializeMessage`) tries request, then notification, then result: every
 * response — most of what a client reads — first fails two branches, and zod builds an
 * issue object with its message for each failure. The four schemas are strict objects,
 * so at most one of them can accept a given message, and it is the one chosen here: what
 * is accepted, and the value returned, are the same as the union's.
 */
import { specTypeSchemas, type JSONRPCMessage, type StandardSchemaV1Sync } from '@modelcontextprotocol/client';

const REQUEST = specTypeSchemas.JSONRPCRequest;
const NOTIFICATION = specTypeSchemas.JSONRPCNotification;
const RESULT = specTypeSchemas.JSONRPCResultResponse;
const ERROR = specTypeSchemas.JSONRPCErrorResponse;

/** The schema that alone can accept `value`: strict objects reject keys of the others. */
function schemaFor(value: object): StandardSchemaV1Sync {
  if ('method' in value) return 'id' in value ? REQUEST : NOTIFICATION;
  return 'error' in value ? ERROR : RESULT;
}

/** The JSON object on `line`, or undefined when it is not JSON or not an object. */
export function parseJsonObjectLine(line: string): object | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
}

/** `value` as a JSON-RPC message, or undefined when it is not one. */
export function asJsonRpcMessage(value: object): JSONRPCMessage | undefined {
  const outcome = schemaFor(value)['~standard'].validate(value);
  return outcome.issues ? undefined : (outcome.value as JSONRPCMessage);
}

/** The message on `line`, or undefined when it is not JSON or not JSON-RPC. */
export function parseJsonRpcLine(line: string): JSONRPCMessage | undefined {
  const value = parseJsonObjectLine(line);
  return value === undefined ? undefined : asJsonRpcMessage(value);
}
