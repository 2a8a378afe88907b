/**
 * Template rendering: references, missing values, JSON for non-strings, escapes, and
 * typed resolution of tool arguments.
 */
import { describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import { renderTemplate, resolveArgs, scanTemplate } from './template.js';
import type { WorkflowContext } from './types.js';

const context: WorkflowContext = {
  inputs: { topic: 'weft', count: 3, flags: { dry: true } },
  env: { HOME: '/home/weft' },
  stages: {
    fetch: { status: 'succeeded', output: { title: 'Notes', items: ['a', 'b'] }, exit_code: 0 },
    ask: { status: 'succeeded', answer: 'ship' },
  },
  run: { id: 'run_01', goal: 'Check the release' },
};

describe('renderTemplate', () => {
  it('replaces inputs, env, stages and run references', () => {
    expect(renderTemplate('Check {{ inputs.topic }} in {{env.HOME}} for {{ run.goal }} ({{ run.id }})', context)).toBe(
      'Check weft in /home/weft for Check the release (run_01)',
    );
    expect(
      renderTemplate(
        '{{ stages.fetch.output.title }}: {{ stages.fetch.status }}/{{ stages.fetch.exit_code }}, {{ stages.ask.answer }}',
        context,
      ),
    ).toBe('Notes: succeeded/0, ship');
    expect(renderTemplate('{{ stages.fetch.output.items.1 }}', context)).toBe('b');
  });

  it('writes numbers as text and objects as JSON', () => {
    expect(renderTemplate('n={{ inputs.count }} flags={{ inputs.flags }} items={{ stages.fetch.output.items }}', context)).toBe(
      'n=3 flags={"dry":true} items=["a","b"]',
    );
  });

  it('renders stages that have not run, missing fields and unset env as empty strings', () => {
    expect(renderTemplate('[{{ stages.later.output }}][{{ inputs.none }}][{{ env.UNSET }}]', context)).toBe('[][][]');
  });

  it('keeps escaped braces and text without references', () => {
    expect(renderTemplate('docker inspect --format \\{{.State}} {{ inputs.topic }}', context)).toBe(
      'docker inspect --format {{.State}} weft',
    );
    expect(renderTemplate('plain { text } }}', context)).toBe('plain { text } }}');
  });

  it('throws on a reference that is not a path', () => {
    expect(() => renderTemplate('{{ inputs.topic | upper }}', context)).toThrow(WeftError);
  });

  it('refuses prototype access', () => {
    expect(() => renderTemplate('{{ inputs.constructor }}', context)).toThrow(
      `Access to 'constructor' is not allowed in workflow expressions.`,
    );
  });
});

describe('scanTemplate', () => {
  it('lists references with their offsets and the invalid ones', () => {
    expect(scanTemplate('a {{ inputs.x }} b {{ 1 + 2 }} \\{{ not.this }}')).toEqual({
      references: [{ source: '{{ inputs.x }}', path: ['inputs', 'x'], offset: 2 }],
      invalid: [{ source: '{{ 1 + 2 }}', offset: 19 }],
    });
  });
});

describe('resolveArgs', () => {
  it('renders strings recursively and keeps the type of a lone reference', () => {
    const args = {
      message: 'About {{ inputs.topic }}',
      count: '{{ inputs.count }}',
      nested: { list: ['{{ inputs.flags }}', 7, true, null], title: '{{stages.fetch.output.title}}' },
      missing: '{{ stages.later.output }}',
    };
    expect(resolveArgs(args, context)).toEqual({
      message: 'About weft',
      count: 3,
      nested: { list: [{ dry: true }, 7, true, null], title: 'Notes' },
      missing: '',
    });
  });

  it('treats a string with two references as text', () => {
    expect(resolveArgs('{{ inputs.count }}{{ inputs.count }}', context)).toBe('33');
  });
});
