/**
 * Shell completion scripts for `weft completion bash|zsh|fish`, generated from the commander
 * tree (commander has none built in), so a new command or option completes with no edit here.
 */
import type { Command } from 'commander';

export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

interface CommandNode {
  /** Subcommand words from the root, e.g. `['mcp', 'add']`; empty for the root. */
  path: string[];
  description: string;
  subcommands: string[];
  options: string[];
}

function walk(command: Command, path: string[], into: CommandNode[]): CommandNode[] {
  const visible = command.commands.filter((child) => child.name() !== 'help');
  into.push({
    path,
    description: command.description(),
    subcommands: visible.map((child) => child.name()),
    options: command.options.flatMap((option) => [option.long, option.short].filter((flag): flag is string => flag !== undefined)),
  });
  for (const child of visible) walk(child, [...path, child.name()], into);
  return into;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function bashScript(nodes: CommandNode[]): string {
  const table = nodes
    .map(
      (node) =>
        `  [${shellQuote(['weft', ...node.path].join(' '))}]=${shellQuote([...node.subcommands, ...node.options, '--help'].join(' '))}`,
    )
    .join('\n');
  return `# weft completion for bash: eval "$(weft completion bash)" (e.g. in ~/.bashrc)
_weft() {
  # Keys are the command words so far ("weft mcp"); values what may follow them.
  local -A words=(
${table}
  )
  local path="weft" word index
  for ((index = 1; index < COMP_CWORD; index++)); do
    word="\${COMP_WORDS[index]}"
    [[ "$word" == -* ]] && continue
    [[ -n "\${words[$path $word]+set}" ]] && path="$path $word"
  done
  COMPREPLY=($(compgen -W "\${words[$path]}" -- "\${COMP_WORDS[COMP_CWORD]}"))
}
complete -o default -F _weft weft
`;
}

function zshScript(nodes: CommandNode[]): string {
  return `#compdef weft
# weft completion for zsh: eval "$(weft completion zsh)" (e.g. in ~/.zshrc)
autoload -U +X bashcompinit && bashcompinit
${bashScript(nodes).split('\n').slice(1).join('\n')}`;
}

function fishScript(nodes: CommandNode[]): string {
  const lines = ['# weft completion for fish: weft completion fish > ~/.config/fish/completions/weft.fish', 'complete -c weft -f'];
  for (const node of nodes) {
    const condition = node.path.length === 0 ? '__fish_use_subcommand' : `__fish_seen_subcommand_from ${node.path[node.path.length - 1]}`;
    for (const child of nodes.filter(
      (other) => other.path.length === node.path.length + 1 && other.path.slice(0, -1).join(' ') === node.path.join(' '),
    )) {
      lines.push(`complete -c weft -n ${shellQuote(condition)} -a ${shellQuote(child.path.at(-1)!)} -d ${shellQuote(child.description)}`);
    }
    for (const option of node.options.filter((flag) => flag.startsWith('--')))
      lines.push(`complete -c weft -n ${shellQuote(condition)} -l ${shellQuote(option.slice(2))}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The completion script of `program` for `shell`. */
export function completionScript(program: Command, shell: CompletionShell): string {
  const nodes = walk(program, [], []);
  switch (shell) {
    case 'bash':
      return bashScript(nodes);
    case 'zsh':
      return zshScript(nodes);
    case 'fish':
      return fishScript(nodes);
    default: {
      const unknown: never = shell;
      return unknown;
    }
  }
}
