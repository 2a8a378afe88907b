/**
 * weft's built-in tool names and Claude Code's names for the tools that do the same, so
 * one approval rule (`{ pattern = "shell", action = "allow" }`) covers an agent stage
 * whichever backend runs it.
 */

/** weft built-in → Claude Code tool. */
export const CLAUDE_TOOL_OF_WEFT_TOOL: Readonly<Record<string, string>> = {
  shell: 'Bash',
  read_file: 'Read',
  write_file: 'Write',
  edit_file: 'Edit',
  grep: 'Grep',
  glob: 'Glob',
  list_dir: 'LS',
  web_fetch: 'WebFetch',
};

/** Claude Code tool → weft built-in. */
export const WEFT_TOOL_OF_CLAUDE_TOOL: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(CLAUDE_TOOL_OF_WEFT_TOOL).map(([weft, claude]) => [claude, weft]),
);
