import { describe, expect, it } from 'vitest';
import { registerSecret } from '../../core/redact.js';
import { MAX_ERROR_CHARS, boundedErrorText, serverErrorReporter } from './server-error-report.js';

describe('boundedErrorText', () => {
  it('puts a multi-line issue list on one line, cut to the bound with the count of what was cut', () => {
    const text = boundedErrorText(`[\n  {\n    "keys": ["${'K'.repeat(1_000_000)}"]\n  }\n]`);
    expect(text.startsWith('[ { "keys": ["KKK')).toBe(true);
    expect(text).not.toContain('\n');
    expect(text.length).toBeLessThan(MAX_ERROR_CHARS + 40);
    expect(text).toMatch(/… \(\d+ more characters\)$/);
  });

  it('escapes control characters a terminal would obey, and redacts secrets before cutting', () => {
    registerSecret('sk-bounded-report-0123456789', 'REPORT_KEY');
    expect(boundedErrorText('bad key "\u001b[2J\u0007" with sk-bounded-report-0123456789')).toBe(
      'bad key "\\u001b[2J\\u0007" with [redacted:REPORT_KEY]',
    );
  });
});

describe('serverErrorReporter', () => {
  it('writes at most perMinute lines a minute, then says how many it left out when the next minute starts', () => {
    const lines: string[] = [];
    let now = 1_000;
    const report = serverErrorReporter('weft: test', { write: (line) => lines.push(line), perMinute: 3, clock: () => now });
    for (let i = 0; i < 10; i += 1) report(new Error(`bad ${i}`));
    expect(lines).toEqual(['weft: test: bad 0\n', 'weft: test: bad 1\n', 'weft: test: bad 2\n']);
    now += 60_000;
    report(new Error('later'));
    expect(lines.slice(3)).toEqual(['weft: test: 7 more errors not shown (at most 3 a minute)\n', 'weft: test: later\n']);
  });
});
