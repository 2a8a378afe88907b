import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'weft-cli-completion-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** What bash offers after `words` (the last one being completed), through the generated script. */
function bashComplete(script: string, words: string[]): Promise<string[]> {
  const program = `${script}\nCOMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _weft; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', program], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.once('error', reject);
    child.once('close', () => resolve(out.split('\n').filter(Boolean).sort()));
  });
}

describe('weft completion', () => {
  it('bash completes commands, subcommands and options from the command tree, past global options', async () => {
    const result = await runCli(['completion', 'bash'], { cwd: base, env: { WEFT_HOME: base } });
    expect(result.code).toBe(0);
    expect(await bashComplete(result.stdout, ['weft', 'mc'])).toEqual(['mcp']);
    expect(await bashComplete(result.stdout, ['weft', '--storage-dir', 'somewhere', 'mcp', 'ad'])).toEqual(['add', 'add-json']);
    expect(await bashComplete(result.stdout, ['weft', 'mcp', 'add', 'x', '--tr'])).toEqual(['--transport']);
    expect(await bashComplete(result.stdout, ['weft', 'completion', ''])).toEqual(['--help']);
  });

  it('zsh and fish scripts name the same tree; an unknown shell is a usage error', async () => {
    const zsh = await runCli(['completion', 'zsh'], { cwd: base, env: { WEFT_HOME: base } });
    expect(zsh.stdout).toMatch(/^#compdef weft\n/);
    expect(zsh.stdout).toContain("['weft mcp']='list get add add-json import remove");
    const fish = await runCli(['completion', 'fish'], { cwd: base, env: { WEFT_HOME: base } });
    expect(fish.stdout).toContain("complete -c weft -n '__fish_seen_subcommand_from mcp' -a 'import' -d ");
    expect(fish.stdout).toContain("complete -c weft -n '__fish_seen_subcommand_from add' -l 'transport'");
    const tcsh = await runCli(['completion', 'tcsh'], { cwd: base, env: { WEFT_HOME: base } });
    expect(tcsh).toEqual({ code: 2, stdout: '', stderr: "weft: No completion for 'tcsh': use one of bash, zsh, fish.\n" });
  });
});
