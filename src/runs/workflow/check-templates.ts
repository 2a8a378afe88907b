/**
 * Validation of `{{ … }}` references inside a node's strings: inline values are reported
 * at their key's line, prompt files at the line of the reference inside the prompt file.
 */
import type { FieldReader } from './field-reader.js';
import type { KeyPath } from '../../core/config-text/line-map.js';
import { checkReference, type ReferenceScope } from './references.js';
import { scanTemplate, stringsIn } from './template.js';
import type { WorkflowProblem } from './types.js';

const REFERENCE_HELP =
  'write {{ inputs.<name> }}, {{ env.<NAME> }}, {{ stages.<node>.output }} or {{ run.goal }}; write \\{{ for literal braces';

/** One message per bad reference in `text`, each with the offset it was found at. */
function templateMessages(text: string, scope: ReferenceScope): { offset: number; message: string }[] {
  const scan = scanTemplate(text);
  const messages = scan.invalid.map((bad) => ({ offset: bad.offset, message: `'${bad.source}' is not a reference — ${REFERENCE_HELP}` }));
  for (const reference of scan.references) {
    const message = checkReference(reference.path, scope, 'template');
    if (message) messages.push({ offset: reference.offset, message: `${reference.source}: ${message}` });
  }
  return messages.sort((a, b) => a.offset - b.offset);
}

/** Checks every string inside the node's field `key` (recursing into tables and arrays). */
export function checkTemplates(node: FieldReader, key: string, scope: ReferenceScope): void {
  for (const { path, text } of stringsIn(node.table[key], [key])) {
    for (const { message } of templateMessages(text, scope)) node.problem(path as KeyPath, message);
  }
}

/** Checks a template read from its own file (a prompt file), reporting lines in that file. */
export function checkTemplateFile(problems: WorkflowProblem[], subject: string, file: string, text: string, scope: ReferenceScope): void {
  for (const { offset, message } of templateMessages(text, scope)) {
    const line = text.slice(0, offset).split('\n').length;
    problems.push({ file, line, message: `${subject}: ${message}` });
  }
}
