/**
 * The SVG drawing: every node and edge of the fixture that uses every node kind is drawn
 * once, laid out top to bottom without overlaps, shaped by kind, and coloured by state in
 * a way the dashboard can change by attribute alone.
 */
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { drawnEdges, NODE_STATES, STATE_COLOURS } from './graph-model.js';
import { loadWorkflow } from './load-workflow.js';
import { renderGraph } from './render-graph.js';
import { renderSvg } from './render-svg.js';
import type { Workflow } from './types.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/workflows/valid/release-check.toml', import.meta.url));
let workflow: Workflow;

beforeAll(async () => {
  workflow = await loadWorkflow(FIXTURE);
});

interface DrawnNode {
  name: string;
  kind: string;
  state?: string;
  shape: string;
  fill: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

const NODE =
  /<g class="weft-node" data-node="([^"]*)" data-kind="(\w+)"(?: data-state="(\w+)")? transform="translate\(([-\d.]+),([-\d.]+)\)">.*?<(rect|polygon) class="weft-shape" ([^>]*)\/>/g;

function drawnNodes(svg: string): DrawnNode[] {
  return [...svg.matchAll(NODE)].map(([, name, kind, state, x, y, shape, attributes]) => {
    const geometry = shape === 'rect' ? attributes! : /points="([^"]*)"/.exec(attributes!)![1]!;
    const numbers = (geometry.match(/-?\d+(?:\.\d+)?/g) ?? []).map(Number);
    const xs = shape === 'rect' ? [numbers[0]!, numbers[0]! + numbers[2]!] : numbers.filter((_, index) => index % 2 === 0);
    const ys = shape === 'rect' ? [numbers[1]!, numbers[1]! + numbers[3]!] : numbers.filter((_, index) => index % 2 === 1);
    const [cx, cy] = [Number(x), Number(y)];
    return {
      name: name!,
      kind: kind!,
      ...(state === undefined ? {} : { state }),
      shape: shape!,
      fill: /fill="([^"]+)"/.exec(attributes!)![1]!,
      left: cx + Math.min(...xs),
      right: cx + Math.max(...xs),
      top: cy + Math.min(...ys),
      bottom: cy + Math.max(...ys),
    };
  });
}

function drawnEdgeList(svg: string): { from: string; to: string; style: string; label?: string }[] {
  return [
    ...svg.matchAll(/<g class="weft-edge" data-from="([^"]*)" data-to="([^"]*)" data-style="([\w-]+)">(?:<title>([^<]*)<\/title>)?/g),
  ].map(([, from, to, style, label]) => ({
    from: from!,
    to: to!,
    style: style!,
    ...(label === undefined ? {} : { label: label.replace(/&quot;/g, '"').replace(/&amp;/g, '&') }),
  }));
}

describe('renderSvg', () => {
  it('draws every node once, shaped by kind, and every edge with its style and condition', () => {
    const svg = renderSvg(workflow);
    const nodes = drawnNodes(svg);
    expect(nodes.map((node) => [node.name, node.kind, node.shape])).toEqual([
      ['fetch', 'tool', 'rect'],
      ['check', 'command', 'rect'],
      ['route', 'branch', 'polygon'],
      ['fan', 'parallel', 'rect'],
      ['write', 'agent', 'rect'],
      ['summarize', 'prompt', 'rect'],
      ['gather', 'join', 'rect'],
      ['ask', 'human', 'polygon'],
      ['kid', 'child', 'rect'],
      ['pause', 'wait', 'rect'],
      ['done', 'command', 'rect'],
    ]);
    expect(svg.match(/class="weft-inner"/g)).toHaveLength(2);
    expect(drawnEdgeList(svg)).toEqual(
      drawnEdges(workflow).map(({ from, to, style, label }) => ({ from, to, style, ...(label === undefined ? {} : { label }) })),
    );
    expect(svg).toContain('<text x="');
    expect(svg).toContain('>exit_code == 0 (weight 10)</text>');
  });

  it('lays the graph out top to bottom with no two nodes overlapping, inside the picture', () => {
    const svg = renderSvg(workflow);
    const nodes = drawnNodes(svg);
    const byName = new Map(nodes.map((node) => [node.name, node]));
    for (const edge of drawnEdges(workflow))
      expect(byName.get(edge.to)!.top, `${edge.from} → ${edge.to}`).toBeGreaterThan(byName.get(edge.from)!.bottom);
    for (const [index, a] of nodes.entries()) {
      for (const b of nodes.slice(index + 1)) {
        const apart = a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
        expect(apart, `${a.name} and ${b.name} overlap`).toBe(true);
      }
    }
    const [, width, height] = /viewBox="0 0 (\d+) (\d+)"/.exec(svg)!.map(Number);
    for (const node of nodes)
      expect(node.left >= 0 && node.top >= 0 && node.right <= width! && node.bottom <= height!, node.name).toBe(true);
  });

  it('colours nodes by state as attributes, with a CSS rule per state that a data-state change picks up', () => {
    const svg = renderGraph(workflow, 'svg', {
      fetch: 'succeeded',
      check: 'failed',
      fan: 'running',
      write: 'skipped',
      summarize: 'pending',
    });
    const states = Object.fromEntries(drawnNodes(svg).map((node) => [node.name, [node.state, node.fill]]));
    expect(states).toEqual({
      fetch: ['succeeded', STATE_COLOURS.succeeded.fill],
      check: ['failed', STATE_COLOURS.failed.fill],
      route: [undefined, '#ffffff'],
      fan: ['running', STATE_COLOURS.running.fill],
      write: ['skipped', STATE_COLOURS.skipped.fill],
      summarize: ['pending', STATE_COLOURS.pending.fill],
      gather: [undefined, '#ffffff'],
      ask: [undefined, '#ffffff'],
      kid: [undefined, '#ffffff'],
      pause: [undefined, '#ffffff'],
      done: [undefined, '#ffffff'],
    });
    for (const state of NODE_STATES)
      expect(svg).toContain(
        `.weft-node[data-state="${state}"] .weft-shape{fill:${STATE_COLOURS[state].fill};stroke:${STATE_COLOURS[state].stroke}}`,
      );
  });

  it('draws a loop back to an earlier node, with a path for every edge', () => {
    const loop: Workflow = {
      ...workflow,
      name: 'loop',
      start: 'try',
      nodes: {
        try: { kind: 'command', name: 'try', line: 1, run: 'make', edges: [{ to: 'check', weight: 0, line: 2 }] },
        check: {
          kind: 'branch',
          name: 'check',
          line: 3,
          edges: [
            {
              to: 'try',
              weight: 0,
              line: 4,
              when: { source: 'stages.try.exit_code != 0', ast: { type: 'literal', value: true }, references: [] },
            },
            { to: 'done', weight: 0, line: 5 },
          ],
        },
        done: { kind: 'command', name: 'done', line: 6, run: 'echo ok', edges: [] },
      },
    };
    const svg = renderSvg(loop);
    expect(drawnEdgeList(svg)).toEqual([
      { from: 'try', to: 'check', style: 'normal' },
      { from: 'check', to: 'try', style: 'normal', label: 'stages.try.exit_code != 0' },
      { from: 'check', to: 'done', style: 'normal', label: 'else' },
    ]);
    expect(svg.match(/<path d="M[-\d.]+,[-\d.]+(?: L[-\d.]+,[-\d.]+)+"/g)).toHaveLength(3);
  });

  it('escapes names and cuts long conditions, keeping the full text as the tooltip', () => {
    const condition = 'output == "<a&b>" || output == "a very long condition that goes on"';
    const tiny: Workflow = {
      ...workflow,
      name: 'say <"hi">',
      start: 'a<b',
      nodes: {
        'a<b': {
          kind: 'branch',
          name: 'a<b',
          line: 1,
          edges: [{ to: 'c&d', weight: 0, line: 2, when: { source: condition, ast: { type: 'literal', value: true }, references: [] } }],
        },
        'c&d': { kind: 'join', name: 'c&d', line: 3, edges: [] },
      },
    };
    const svg = renderSvg(tiny);
    expect(svg).toContain('aria-label="Workflow say &lt;&quot;hi&quot;&gt;"');
    expect(drawnNodes(svg).map((node) => node.name)).toEqual(['a&lt;b', 'c&amp;d']);
    expect(svg).toContain('<text class="weft-name" y="-2">a&lt;b</text>');
    expect(svg).toContain(
      `<title>${condition.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')}</title>`,
    );
    expect(svg).toContain('>output == &quot;&lt;a&amp;b&gt;&quot; || output == &quot;a very…</text>');
  });
});
