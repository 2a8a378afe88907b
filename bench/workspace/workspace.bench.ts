/**
 * Checkpoint cost per stage (issue 23): on a generated repository of 10,000 files, the
 * run's worktree is checkpointed after a "stage" that changed 10 files, and after one that
 * changed nothing, side by side with the floor (one `git --version` spawn, one `git status`)
 * and session 7's path (`git status`, `update-index` of the paths it listed, `write-tree`,
 * `commit-tree` + `update-ref` beside `diff-tree`), each on its own worktree of the same
 * repository, the two paths' samples interleaved so both see the same load. Target: p50
 * under 50 ms with 10 files changed.
 *
 *   node --import tsx bench/workspace/workspace.bench.ts [--iterations=200]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkpoint } from '../../src/runs/workspace/checkpoint.js';
import { changedFiles } from '../../src/runs/workspace/changed-files.js';
import { commitMessage, commitTree } from '../../src/runs/workspace/commit.js';
import { git, gitEnvironment, gitLine } from '../../src/runs/workspace/git.js';
import { openWorkspace } from '../../src/runs/workspace/open.js';
import { prepareWorkspace } from '../../src/runs/workspace/prepare.js';
import type { OpenedWorkspace } from '../../src/runs/workspace/workspace-spec.js';
import { now } from '../lib/measure.js';
import { formatNumber, machineInfo, markdownTable, writeResults } from '../lib/report.js';
import { summarize, type Summary } from '../lib/stats.js';

const FILES = 10_000;
const CHANGED = 10;
const iterations = Number(process.argv.find((arg) => arg.startsWith('--iterations='))?.split('=')[1] ?? 200);

function makeRepository(dir: string): void {
  for (let index = 0; index < FILES; index += 1) {
    const folder = join(dir, `src/module-${String(index % 100).padStart(3, '0')}`);
    if (index < 100) mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `file-${index}.ts`), `export const value${index} = ${index};\n// ${'x'.repeat(200)}\n`);
  }
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\ndist/\n');
  const env = gitEnvironment({ GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' });
  for (const args of [
    ['init', '--quiet', '--initial-branch=main'],
    ['add', '-A'],
    ['commit', '--quiet', '-m', 'generated'],
  ])
    execFileSync('git', args, { cwd: dir, env });
}

let round = 0;
/** A stage's work: rewrite `CHANGED` files spread over the tree (one of them new). */
function changeFiles(topDir: string): void {
  round += 1;
  for (let index = 0; index < CHANGED - 1; index += 1) {
    const file = (round * 7919 + index * 997) % FILES;
    writeFileSync(
      join(topDir, `src/module-${String(file % 100).padStart(3, '0')}/file-${file}.ts`),
      `export const value${file} = ${round};\n`,
    );
  }
  writeFileSync(join(topDir, `src/new-${round}.ts`), `export const round = ${round};\n`);
}

/** CPU time (ms) of this process plus its finished children (the git processes), from /proc: load-independent, unlike wall time. */
function cpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  const ticks = Number(fields[13]) + Number(fields[14]);
  const own = process.cpuUsage();
  return (ticks * 1000) / CLOCK_TICKS + (own.user + own.system) / 1000;
}
const CLOCK_TICKS = 100;

interface Row {
  name: string;
  summary: Summary;
  /** Mean CPU per operation (ms), this process and its git children. */
  cpuMs: number;
}

interface Variant {
  name: string;
  setup: () => void | Promise<void>;
  work: () => Promise<unknown>;
}

/** One sample of each variant in turn (5 warm-up rounds), so a change in the machine's load hits them alike. */
async function interleaved(samples: number, variants: readonly Variant[]): Promise<Row[]> {
  const times = variants.map((): number[] => []);
  const cpu = variants.map(() => 0);
  for (let index = 0; index < samples + 5; index += 1) {
    for (const [at, variant] of variants.entries()) {
      await variant.setup();
      const cpuStart = cpuMs();
      const start = now();
      await variant.work();
      if (index >= 5) {
        times[at]?.push(now() - start);
        cpu[at] = (cpu[at] ?? 0) + cpuMs() - cpuStart;
      }
    }
  }
  return variants.map((variant, at) => ({ name: variant.name, summary: summarize(times[at] ?? []), cpuMs: (cpu[at] ?? 0) / samples }));
}

/**
 * Session 7's checkpoint, kept here to compare against: `git status`, `update-index` of the
 * paths it listed (full index), `write-tree`, then `commit-tree` + `update-ref` beside
 * `diff-tree`, each process started when the one before it ended. False when nothing changed.
 */
async function checkpointSession7(ws: OpenedWorkspace, stage: string): Promise<boolean> {
  const cwd = ws.topDir;
  const { stdout } = await git(
    ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all', '--no-renames', '--ignore-submodules=none'],
    { cwd },
  );
  const paths = stdout
    .split('\0')
    .filter((token) => token.startsWith('1 ') || token.startsWith('? '))
    .map((token) => (token.startsWith('? ') ? token.slice(2) : token.split(' ').slice(8).join(' ')));
  if (paths.length === 0) return false;
  await git(['update-index', '--add', '--remove', '-z', '--stdin'], { cwd, input: `${paths.join('\0')}\0` });
  const tree = await gitLine(['write-tree'], { cwd });
  const message = commitMessage(`weft: ${stage}@1`, [
    ['Weft-Run', ws.runId],
    ['Weft-Stage', stage],
    ['Weft-Attempt', '1'],
  ]);
  const [, commit] = await Promise.all([
    changedFiles(cwd, ws.head, tree),
    (async () => {
      const made = await commitTree({ cwd, tree, parents: [ws.head], message });
      await git(['update-ref', '-m', `weft: checkpoint ${stage}@1`, `refs/heads/${ws.workspace.branch}`, made, ws.head], { cwd });
      return made;
    })(),
  ]);
  ws.head = commit;
  return true;
}

async function main(): Promise<void> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'weft-bench-ws-')));
  const loadBefore = loadavg();
  try {
    const repo = join(base, 'repo');
    mkdirSync(repo);
    const setupStart = now();
    makeRepository(repo);
    const generatedMs = now() - setupStart;
    const { workspace } = await prepareWorkspace({ runId: 'bench', cwd: repo, spec: {} });
    const openStart = now();
    const ws = await openWorkspace({ runId: 'bench', workspace, root: join(base, 'root') });
    const firstOpenMs = now() - openStart;
    const reopenStart = now();
    await openWorkspace({ runId: 'bench', workspace, root: join(base, 'root') });
    const reopenMs = now() - reopenStart;
    const { workspace: oldWorkspace } = await prepareWorkspace({ runId: 'bench-session7', cwd: repo, spec: {} });
    const old = await openWorkspace({ runId: 'bench-session7', workspace: oldWorkspace, root: join(base, 'root') });
    let stage = 0;
    const rows: Row[] = [];
    rows.push(
      ...(await interleaved(iterations, [
        { name: 'floor: spawn `git --version`', setup: () => undefined, work: () => git(['--version'], { cwd: ws.topDir }) },
      ])),
    );
    rows.push(
      ...(await interleaved(iterations, [
        {
          name: 'floor: `git status` (clean tree)',
          setup: () => undefined,
          work: () => git(['status', '--porcelain=v2', '-z', '--untracked-files=all'], { cwd: ws.topDir }),
        },
      ])),
    );
    rows.push(
      ...(await interleaved(iterations, [
        {
          name: 'checkpoint, no change',
          setup: () => undefined,
          work: async () => {
            if ((await checkpoint(ws, { stageId: 'noop', attempt: 1 })) !== null) throw new Error('a no-change stage made a commit');
          },
        },
        {
          name: 'session 7 path, no change',
          setup: () => undefined,
          work: async () => {
            if (await checkpointSession7(old, 'noop')) throw new Error('a no-change stage made a commit (session 7 path)');
          },
        },
      ])),
    );
    rows.push(
      ...(await interleaved(iterations, [
        {
          name: `checkpoint, ${CHANGED} files changed`,
          setup: () => changeFiles(ws.topDir),
          work: async () => {
            stage += 1;
            const made = await checkpoint(ws, { stageId: `s${stage}`, attempt: 1 });
            if (made?.filesChanged !== CHANGED) throw new Error(`expected ${CHANGED} files in the checkpoint, got ${made?.filesChanged}`);
          },
        },
        {
          name: `session 7 path, ${CHANGED} files changed`,
          setup: () => changeFiles(old.topDir),
          work: async () => {
            if (!(await checkpointSession7(old, `s${stage}`))) throw new Error('the session 7 path made no commit');
          },
        },
      ])),
    );
    const machine = machineInfo();
    const table = markdownTable({
      headers: ['operation', 'samples', 'p50 (ms)', 'p99 (ms)', 'mean (ms)', 'max (ms)', 'CPU mean (ms)'],
      rows: rows.map(({ name, summary, cpuMs: cpu }) => [
        name,
        String(summary.count),
        formatNumber(summary.p50, 2),
        formatNumber(summary.p99, 2),
        formatNumber(summary.mean, 2),
        formatNumber(summary.max, 2),
        formatNumber(cpu, 1),
      ]),
    });
    const gitVersion = execFileSync('git', ['--version'], { encoding: 'utf8' }).trim();
    const markdown = [
      '# Workspace checkpoint cost per stage',
      '',
      `${machine.date} · Node ${machine.node} · ${machine.platform} · ${machine.cpus} × ${machine.cpuModel.split(' ').slice(0, 2).join(' ')} · ${gitVersion} · load average ${loadBefore[0]?.toFixed(1)} before, ${loadavg()[0]?.toFixed(1)} after (1 min)`,
      '',
      `A generated repository of ${FILES.toLocaleString('en-US')} files (~230 bytes each, 100 folders), committed; the run's worktree made by \`openWorkspace\` (first open ${formatNumber(firstOpenMs, 0)} ms: \`worktree add\` + checkout; reopen with reset ${formatNumber(reopenMs, 0)} ms; generating the repository took ${formatNumber(generatedMs, 0)} ms). Each sample is one \`checkpoint()\` after a "stage" that rewrote ${CHANGED - 1} tracked files and added one (the writes are outside the timing), or after a stage that changed nothing; the floor rows are what any git call costs here. CPU is this process plus its git children (from \`/proc/self/stat\`, 10 ms ticks, so only the mean over all samples means anything); unlike wall time it barely moves with the machine's load (the header gives it). The "session 7 path" rows are the previous implementation (\`git status\`, \`update-index\` of the listed paths on a full index, \`write-tree\`, then \`commit-tree\` + \`update-ref\` beside \`diff-tree\`, each process started after the one before) on a second worktree of the same repository; its samples alternate with the current path's, so both see the same load. The current path: \`add -A\` (HEAD read from its files meanwhile), \`write-tree\` on a split index, and \`hash-object\`, \`update-ref --stdin\` and \`diff-tree --stdin\` started while \`write-tree\` runs and fed once the tree is known. Compare with the engine's per-stage cost in \`runs.md\` (1–6 ms for in-process stages, ~37 ms for a command stage at 8 runs at a time): a no-change stage pays \`add -A\` alone when its index is the one the last checkpoint left. Both paths' floor is one \`lstat\` per tracked file (in \`git status\` or \`git add -A\`) plus the walk for untracked files; only a file-system monitor avoids them, and git 2.39 has one built in on macOS and Windows only.`,
      '',
      table,
      '',
    ].join('\n');
    const written = writeResults(
      'workspace',
      {
        benchmark: 'workspace',
        machine,
        gitVersion,
        loadBefore,
        loadAfter: loadavg(),
        files: FILES,
        changed: CHANGED,
        generatedMs,
        firstOpenMs,
        reopenMs,
        rows,
      },
      markdown,
    );
    console.log(markdown);
    console.log(`\nwritten: ${written.json}, ${written.markdown}`);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
