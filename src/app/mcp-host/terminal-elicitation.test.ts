/** Unit tests of `terminalElicitationHandler` with a scripted terminal: one prompt per field, defaults, retries, stops. */
import { describe, expect, it } from 'vitest';
import type { ElicitRequestFormParams } from '@modelcontextprotocol/client';
import { terminalElicitationHandler } from './terminal-elicitation.js';
import type { TerminalPrompter } from './terminal-prompter.js';

function scripted(answers: string[], interactive = true): TerminalPrompter & { transcript: string[] } {
  const transcript: string[] = [];
  return {
    interactive,
    transcript,
    ask: async (prompt) => {
      const answer = answers.shift();
      if (answer === undefined) throw new Error(`no scripted answer for ${prompt}`);
      transcript.push(`${prompt}${answer}`);
      return answer;
    },
    say: (line) => transcript.push(line),
  };
}

const FORM: ElicitRequestFormParams = {
  message: 'About you',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Name', description: 'Your full name' },
      agree: { type: 'boolean', title: 'Agree' },
      pet: {
        type: 'string',
        title: 'Pet',
        oneOf: [
          { const: 'p1', title: 'Cat' },
          { const: 'p2', title: 'Dog' },
        ],
        default: 'p1',
      },
      age: { type: 'integer', title: 'Age', minimum: 0 },
    },
    required: ['name'],
  },
};

const signal = new AbortController().signal;

describe('terminalElicitationHandler', () => {
  it('asks each field in order; Enter keeps defaults and skips optional fields; titles pick options', async () => {
    const terminal = scripted(['Ada', 'y', 'dog', '']);
    const result = await terminalElicitationHandler(terminal)({ server: 'srv', params: FORM, signal });
    expect(result).toEqual({ action: 'accept', content: { name: 'Ada', agree: true, pet: 'p2' } });
    expect(terminal.transcript).toEqual([
      '[srv] About you',
      '(Enter keeps the default or skips an optional field; type "decline" or "cancel" at any prompt to stop.)',
      'Name — Your full name: Ada',
      'Agree [y/n] (optional): y',
      '  1) Cat [p1]  2) Dog [p2]',
      'Pet (default p1): dog',
      'Age (optional): ',
    ]);
  });

  it('asks a field again when the answer does not fit, and fills defaults', async () => {
    const terminal = scripted(['', 'Ada', 'maybe', 'n', '', '-3', '7']);
    const result = await terminalElicitationHandler(terminal)({ server: 'srv', params: FORM, signal });
    expect(result).toEqual({ action: 'accept', content: { name: 'Ada', agree: false, pet: 'p1', age: 7 } });
    expect(terminal.transcript).toContain('  Name is required.');
    expect(terminal.transcript).toContain('  answer y or n');
    expect(terminal.transcript).toContain('  must be >= 0');
  });

  it('decline or cancel at any prompt ends the form so', async () => {
    expect(await terminalElicitationHandler(scripted(['Ada', 'decline']))({ server: 'srv', params: FORM, signal })).toEqual({
      action: 'decline',
    });
    expect(await terminalElicitationHandler(scripted(['cancel']))({ server: 'srv', params: FORM, signal })).toEqual({ action: 'cancel' });
  });

  it('cancels after three answers that do not fit', async () => {
    const terminal = scripted(['Ada', 'x', 'y?', 'z']);
    expect(await terminalElicitationHandler(terminal)({ server: 'srv', params: FORM, signal })).toEqual({ action: 'cancel' });
    expect(terminal.transcript.at(-1)).toBe('  No valid answer for Agree after 3 tries; the form is cancelled.');
  });

  it('without a terminal it declines and says why', async () => {
    const terminal = scripted([], false);
    expect(await terminalElicitationHandler(terminal)({ server: 'srv', params: FORM, signal })).toEqual({ action: 'decline' });
    expect(terminal.transcript).toEqual([
      `weft: MCP server 'srv' asked for input ("About you"), but stdin is not a terminal, so weft declined. Run the command in a terminal to answer it.`,
    ]);
  });
});
