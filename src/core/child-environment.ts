/**
 * Weft's own secrets in the environment, and the environment weft hands the processes it
 * starts (runners, `command` stages, the `shell` tool) without them: a runner started by
 * `weft mcp start --http` has no use for the server's bearer token, nor has any stage.
 */

/** The bearer token of `weft mcp start --http`. */
export const MCP_SERVER_TOKEN_ENV = 'WEFT_MCP_TOKEN';

/** Variables only the weft process that reads them needs; no child gets them. */
export const WEFT_SECRET_ENV_NAMES: readonly string[] = [MCP_SERVER_TOKEN_ENV];

/**
 * @example spawn(cmd, args, { env: withoutWeftSecrets({ ...process.env, FOO: '1' }) })
 */
export function withoutWeftSecrets(env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  const copy = { ...env };
  for (const name of WEFT_SECRET_ENV_NAMES) delete copy[name];
  return copy;
}
