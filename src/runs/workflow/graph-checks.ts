/**
 * Checks over the whole graph: every node reachable from the start, every reachable node
 * able to reach an exit (no cycle without a way out), and each parallel node's branches
 * able to reach its join, which must be a `join` node.
 */
import { report, type ParseContext } from './field-reader.js';

/** What the graph checks need of a node; broken nodes have kind 'unknown'. */
export interface GraphNode {
  name: string;
  kind: string;
  line: number;
  edges: readonly { to: string }[];
  branches?: readonly string[];
  join?: string;
}

/** Edge targets, plus a parallel node's branches and join. */
export function successors(node: GraphNode): string[] {
  const targets = node.edges.map((edge) => edge.to);
  if (node.kind === 'parallel') targets.push(...(node.branches ?? []), ...(node.join ? [node.join] : []));
  return [...new Set(targets)];
}

function reachableFrom(starts: readonly string[], next: (name: string) => readonly string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...starts];
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (seen.has(name)) continue;
    seen.add(name);
    queue.push(...next(name));
  }
  return seen;
}

function checkParallel(
  context: ParseContext,
  node: GraphNode,
  byName: Map<string, GraphNode>,
  next: (name: string) => readonly string[],
): void {
  const join = node.join ? byName.get(node.join) : undefined;
  if (!join) return;
  const subject = `node '${node.name}' (parallel)`;
  if (join.kind !== 'join' && join.kind !== 'unknown') {
    report(
      context,
      ['nodes', node.name, 'join'],
      `${subject}: join '${join.name}' is a ${join.kind} node, not a join node — point join at a node with kind = "join"`,
    );
    return;
  }
  for (const branch of node.branches ?? []) {
    if (!byName.has(branch)) continue;
    if (branch === join.name) {
      report(
        context,
        ['nodes', node.name, 'branches'],
        `${subject}: the join '${join.name}' is also listed as a branch — list only the nodes to run in parallel`,
      );
    } else if (!reachableFrom([branch], next).has(join.name)) {
      report(
        context,
        ['nodes', node.name, 'branches'],
        `${subject}: branch '${branch}' cannot reach the join '${join.name}' — add an edge from the branch's last node to '${join.name}'`,
      );
    }
  }
}

export function checkGraph(context: ParseContext, nodes: readonly GraphNode[], start: string | undefined): void {
  const byName = new Map(nodes.map((node) => [node.name, node]));
  const next = (name: string) => {
    const node = byName.get(name);
    return node ? successors(node).filter((target) => byName.has(target)) : [];
  };
  const reachable = start !== undefined && byName.has(start) ? reachableFrom([start], next) : new Set(byName.keys());
  for (const node of nodes) {
    if (!reachable.has(node.name)) {
      report(
        context,
        ['nodes', node.name],
        `node '${node.name}' is unreachable from the start node '${start}' — add an edge to it or remove it`,
      );
    }
  }

  const predecessors = new Map<string, string[]>();
  for (const node of nodes)
    for (const target of next(node.name)) predecessors.set(target, [...(predecessors.get(target) ?? []), node.name]);
  const exits = nodes.filter((node) => node.kind !== 'parallel' && node.edges.length === 0).map((node) => node.name);
  const canExit = reachableFrom(exits, (name) => predecessors.get(name) ?? []);
  for (const node of nodes) {
    if (!reachable.has(node.name) || canExit.has(node.name)) continue;
    const loop = nodes.filter((other) => reachableFrom([node.name], next).has(other.name)).map((other) => other.name);
    report(
      context,
      ['nodes', node.name],
      `node '${node.name}' has no path to an exit (it only leads to ${loop.join(', ')}) — add an edge that leaves the cycle, to a node with no outgoing edges`,
    );
  }

  const joins = new Set<string>();
  for (const node of nodes) {
    if (node.kind !== 'parallel') continue;
    if (node.join) joins.add(node.join);
    checkParallel(context, node, byName, next);
  }
  for (const node of nodes) {
    if (node.kind === 'join' && !joins.has(node.name)) {
      report(
        context,
        ['nodes', node.name, 'kind'],
        `join node '${node.name}' is not the join of any parallel node — set join = "${node.name}" on a parallel node or change its kind`,
      );
    }
  }
}
