/**
 * The report channel between a detached runner and its launcher (`runner-report.ts`), across
 * a real process boundary: the launcher reads what the runner reports on fd 3, keeping the
 * end of a long report; a runner whose launcher has gone (its end closed) loses the report
 * but is not harmed by the failed write.
 */
import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { collectReport, RUNNER_REPORT_FD } from '../src/app/host/runner-report.js';
import { REPO_ROOT } from './helpers/run-cli.js';

/** A process that, once told on stdin, reports `text` through `tellLauncher` on fd 3, then says `survived` on stdout. */
function reporter(text: string) {
  const script = `
    import { reportToLauncherOn, tellLauncher } from './src/app/host/runner-report.ts';
    process.stdin.once('data', () => {
      reportToLauncherOn(${RUNNER_REPORT_FD});
      tellLauncher(${JSON.stringify(text)});
      process.stdout.write('survived');
      process.exit(0);
    });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { channel: child.stdio[RUNNER_REPORT_FD] as Readable, go: () => (child.stdin as Writable).end('go\n'), exited };
}

describe('the runner report channel', () => {
  it('brings the end of what the runner reported to the launcher', async () => {
    const runner = reporter(`${'x'.repeat(10_000)}stage fill@1 could not be recorded: the disk is full`);
    const report = collectReport(runner.channel);
    runner.go();
    const text = await report.text();
    expect(text).toMatch(/^x+stage fill@1 could not be recorded: the disk is full$/);
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text.length).toBeGreaterThan(4000);
    expect((await runner.exited).code).toBe(0);
  });

  it('costs the runner nothing when its launcher is gone', async () => {
    const runner = reporter('nobody hears this');
    runner.channel.destroy();
    runner.go();
    const exited = await runner.exited;
    expect(exited.code, exited.stderr).toBe(0);
    expect(exited.stdout).toBe('survived');
  });
});
