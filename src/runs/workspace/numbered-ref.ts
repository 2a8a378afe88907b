/**
 * Refs numbered under a prefix (`refs/weft/abandoned/<run>/1`, `/2`, …) that keep commits
 * reachable. Each is created only if it does not exist yet, so two writers never overwrite
 * each other's evidence.
 */
import { WeftError } from '../../core/errors.js';
import { git } from './git.js';

/** The refs under `prefix`, oldest number first, with the commits they hold. */
export async function numberedRefs(cwd: string, prefix: string): Promise<{ ref: string; number: number; commit: string }[]> {
  const { stdout } = await git(['for-each-ref', '--format=%(refname)%00%(objectname)', '--', `${prefix}/`], { cwd });
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [ref = '', commit = ''] = line.split('\0');
      return { ref, number: Number(ref.slice(prefix.length + 1)), commit };
    })
    .filter((entry) => Number.isInteger(entry.number))
    .sort((left, right) => left.number - right.number);
}

/**
 * Creates `<prefix>/<n>` at `commit` with the next free number and returns its name.
 * @example await nextNumberedRef(repo, 'refs/weft/abandoned/01J…', tip) // 'refs/weft/abandoned/01J…/1'
 */
export async function nextNumberedRef(cwd: string, prefix: string, commit: string): Promise<string> {
  for (let tries = 0; tries < 20; tries += 1) {
    const existing = await numberedRefs(cwd, prefix);
    const ref = `${prefix}/${(existing.at(-1)?.number ?? 0) + 1}`;
    const { code } = await git(['update-ref', ref, commit, ''], { cwd, okCodes: [1, 128] });
    if (code === 0) return ref;
  }
  throw new WeftError(
    'WORKSPACE_GIT_FAILED',
    `Could not create a ref under ${prefix} to keep ${commit}: another writer kept taking the next number. Retry.`,
    { data: { prefix, commit } },
  );
}
