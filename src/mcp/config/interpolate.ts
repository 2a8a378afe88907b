/**
 * Variable interpolation in server config values: `${VAR}`, `${VAR:-default}`,
 * `${env:VAR}` (also with `:-default`), `${WORKDIR}` (the workspace root) and Cursor's
 * `${workspaceFolder}` / `${userHome}`. A bare `$VAR` and anything that is not one of
 * these forms is left exactly as written.
 */

export interface InterpolationScope {
  env: Record<string, string | undefined>;
  workspaceRoot: string;
  homeDir: string;
}

export interface Interpolated {
  value: string;
  /** Variables that were unset and had no default; each became ''. */
  unset: string[];
  /** Whether any `${…}` was replaced. */
  changed: boolean;
}

const REFERENCE = /\$\{([^{}]*)\}/g;
const FORM = /^(env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;

function special(name: string, scope: InterpolationScope): string | undefined {
  if (name === 'WORKDIR' || name === 'workspaceFolder') return scope.workspaceRoot;
  if (name === 'userHome') return scope.homeDir;
  return undefined;
}

/**
 * Replaces every reference in `text`. `:-default` applies when the variable is unset or
 * empty (as in the shell); defaults are literal (no nested references).
 */
export function interpolate(text: string, scope: InterpolationScope): Interpolated {
  const unset: string[] = [];
  let changed = false;
  const value = text.replace(REFERENCE, (whole, inner: string) => {
    const match = FORM.exec(inner);
    if (!match) return whole;
    const [, envPrefix, name, fallback] = match as unknown as [string, string | undefined, string, string | undefined];
    changed = true;
    if (!envPrefix) {
      const builtin = special(name, scope);
      if (builtin !== undefined) return builtin;
    }
    const found = scope.env[name];
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    if (found === undefined && !unset.includes(name)) unset.push(name);
    return '';
  });
  return { value, unset, changed };
}
