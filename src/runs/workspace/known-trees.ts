/**
 * The tree of each opened workspace's last checkpoint, kept beside (not in) the
 * `OpenedWorkspace`, so a caller that moves `head` itself can never make `checkpoint`
 * trust a stale tree: the tree is used only while it belongs to the current head.
 */
import type { OpenedWorkspace } from './workspace-spec.js';

const trees = new WeakMap<OpenedWorkspace, { commit: string; tree: string }>();

export function rememberTree(opened: OpenedWorkspace, commit: string, tree: string): void {
  trees.set(opened, { commit, tree });
}

/** The tree of `opened.head`, if it was remembered for that very commit. */
export function knownTree(opened: OpenedWorkspace): string | undefined {
  const known = trees.get(opened);
  return known !== undefined && known.commit === opened.head ? known.tree : undefined;
}
