/** The external coding CLIs an agent stage can run on (`backend = "cli"`); workflow nodes and settings' `[cli.<name>]` name the same ones. */
export const CLI_NAMES = ['claude', 'codex', 'gemini'] as const;

/** One of the names in `CLI_NAMES`. */
export type CliName = (typeof CLI_NAMES)[number];
