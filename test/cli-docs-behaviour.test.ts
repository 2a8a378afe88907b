/**
 * What the docs promise, checked against the built CLI (issue 16, "docs that disagree with
 * behaviour"): an edge that matches nothing ends the run failed while its stage keeps its
 * status (docs/workflow-format.md, "Selection"); a server entry with a wrong type is skipped
 * with a warning by `weft tools` and runs, while `weft mcp list` and `get` exit 2 on it (README,
 * "Settings"). `mcp get` of a server that fails exits 1 (cli-mcp-list-progress.test.ts), and
 * questions are answered with `weft answer` (cli-runs-steer.test.ts). README's command table
 * names every command of `weft --help` with exactly the options each one's `--help` lists.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { REPO_ROOT } from './helpers/run-cli.js';
import { sandboxPerTest } from './fixtures/workflows-e2e/harness.js';

vi.setConfig({ testTimeout: 60_000 });

const box = sandboxPerTest();

describe('the docs agree with behaviour', () => {
  it('an edge that matches no outcome fails the run; the stage stays succeeded (workflow-format.md)', async () => {
    await writeFile(
      join(box.ws, 'unmatched.toml'),
      '[nodes.check]\nkind = "command"\nrun = "echo ok"\n[[nodes.check.edges]]\nto = "never"\nwhen = "output == \'nope\'"\n\n[nodes.never]\nkind = "command"\nrun = "echo never"\n',
    );
    const result = await box.cli(['run', 'unmatched.toml']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^✓ check@1 succeeded in \S+ → ok$/m);
    expect(result.stdout).not.toContain('never@1');
    expect(result.stderr).toMatch(/^run \S+ failed — .*no edge of 'check' matches its outcome/m);
  });

  it('a server entry with a wrong type is skipped with a warning by weft tools; mcp list and get exit 2 on it (README)', async () => {
    await writeFile(join(box.ws, '.mcp.json'), JSON.stringify({ mcpServers: { bad: { command: 5 } } }));
    const warning = `.mcp.json: server 'bad': field 'command' must be a string or an array of strings, not a number (5)`;
    const tools = await box.cli(['tools', 'list']);
    expect(tools.code).toBe(0);
    expect(tools.stderr).toContain(`weft warn: ${warning}`);
    expect(tools.stdout).toMatch(/^read_file {2,}builtin/m);
    expect(tools.stdout).not.toContain('mcp__bad__');
    for (const args of [
      ['mcp', 'list'],
      ['mcp', 'get', 'bad'],
    ]) {
      const result = await box.cli(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`weft: ${warning}`);
    }
  });

  it("README's command table lists every command of weft --help, each with exactly the options its --help lists", async () => {
    const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
    const documented = commandTable(readme.slice(readme.indexOf('## Commands'), readme.indexOf('## Exit codes')));
    const commands = await commandsOf([]);
    expect([...documented.keys()].sort()).toEqual(commands.map((path) => path.join(' ')).sort());
    const helps = await Promise.all(commands.map((path) => help(path)));
    commands.forEach((path, index) => {
      const name = path.join(' ');
      const options = documented.get(name)!;
      expect({ command: name, options: longOptions(options) }).toEqual({
        command: name,
        options: longOptions(optionsSection(helps[index]!)).filter((option) => option !== '--help'),
      });
      for (const [, short] of options.matchAll(/(?<![\w-])(-[a-zA-Z])\//g))
        expect(helps[index], `${name} ${short}`).toContain(`  ${short}, `);
    });
  });
});

async function help(path: string[]): Promise<string> {
  const result = await box.cli([...path, '--help']);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

/** Every runnable command as its words (`['mcp', 'add']`): groups such as `mcp` are opened, `help` is left out. */
async function commandsOf(path: string[]): Promise<string[][]> {
  const text = await help(path);
  const names = [...(text.split('\nCommands:\n')[1] ?? '').matchAll(/^ {2}([a-z][a-z-]*)/gm)]
    .map((match) => match[1]!)
    .filter((name) => name !== 'help');
  if (names.length === 0) return [path];
  return (await Promise.all(names.map((name) => commandsOf([...path, name])))).flat();
}

function optionsSection(text: string): string {
  return (text.split('\nOptions:\n')[1] ?? '')
    .split('\n\n')[0]!
    .split('\n')
    .filter((line) => /^ {2}-/.test(line))
    .map((line) => line.trim().split(/ {2,}/)[0])
    .join(' ');
}

function longOptions(text: string): string[] {
  return [...new Set([...text.matchAll(/--[a-z][a-z-]*/g)].map((match) => match[0]))].sort();
}

/** The README's command table: `weft mcp add` → its options cell. */
function commandTable(section: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = line.split(/(?<!\\)\|/).map((cell) => cell.trim());
    const command = /^`weft ((?:[a-z][a-z-]*)(?: [a-z][a-z-]*)*)/.exec(cells[1] ?? '');
    if (command) rows.set(command[1]!, cells[3] ?? '');
  }
  return rows;
}
