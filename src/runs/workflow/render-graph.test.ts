/**
 * Graph rendering: the full Mermaid and DOT text for the fixture that uses every node
 * kind, with and without stage states.
 */
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadWorkflow } from './load-workflow.js';
import { renderGraph } from './render-graph.js';
import type { Workflow } from './types.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/workflows/valid/release-check.toml', import.meta.url));
let workflow: Workflow;

beforeAll(async () => {
  workflow = await loadWorkflow(FIXTURE);
});

describe('renderGraph', () => {
  it('renders Mermaid with shapes by kind and conditions on edges', () => {
    expect(renderGraph(workflow, 'mermaid')).toBe(`flowchart TD
  n0["fetch<br/>tool"]
  n1["check<br/>command"]
  n2{"route<br/>branch"}
  n3[["fan<br/>parallel"]]
  n4["write<br/>agent"]
  n5["summarize<br/>prompt"]
  n6[["gather<br/>join"]]
  n7[/"ask<br/>human"/]
  n8["kid<br/>child"]
  n9["pause<br/>wait"]
  n10["done<br/>command"]
  n0 --> n1
  n1 -->|"exit_code == 0 (weight 10)"| n3
  n1 -->|"else"| n2
  n2 -->|"stages.check.exit_code == 1 #amp;#amp; inputs.topic in [#quot;weft#quot;, #quot;docs#quot;]"| n3
  n2 -->|"else"| n10
  n3 ==> n4
  n3 ==> n5
  n3 -.->|"join"| n6
  n4 --> n6
  n5 --> n6
  n6 --> n7
  n7 -->|"answer == #quot;ship#quot;"| n8
  n7 -->|"else"| n10
  n8 --> n9
  n9 --> n10
`);
  });

  it('renders DOT with shapes by kind and conditions on edges', () => {
    expect(renderGraph(workflow, 'dot')).toBe(`digraph "release-check" {
  rankdir=TB;
  node [shape=box, style=rounded, fontname="Helvetica"];
  edge [fontname="Helvetica", fontsize=10];
  "fetch" [label="fetch\\ntool"];
  "check" [label="check\\ncommand"];
  "route" [label="route\\nbranch", shape=diamond];
  "fan" [label="fan\\nparallel", peripheries=2];
  "write" [label="write\\nagent"];
  "summarize" [label="summarize\\nprompt"];
  "gather" [label="gather\\njoin", peripheries=2];
  "ask" [label="ask\\nhuman", shape=parallelogram];
  "kid" [label="kid\\nchild"];
  "pause" [label="pause\\nwait"];
  "done" [label="done\\ncommand"];
  "fetch" -> "check";
  "check" -> "fan" [label="exit_code == 0 (weight 10)"];
  "check" -> "route" [label="else"];
  "route" -> "fan" [label="stages.check.exit_code == 1 && inputs.topic in [\\"weft\\", \\"docs\\"]"];
  "route" -> "done" [label="else"];
  "fan" -> "write" [style=bold];
  "fan" -> "summarize" [style=bold];
  "fan" -> "gather" [style=dashed, label="join"];
  "write" -> "gather";
  "summarize" -> "gather";
  "gather" -> "ask";
  "ask" -> "kid" [label="answer == \\"ship\\""];
  "ask" -> "done" [label="else"];
  "kid" -> "pause";
  "pause" -> "done";
}
`);
  });

  it('colours Mermaid nodes by state', () => {
    const states = { fetch: 'succeeded', check: 'succeeded', fan: 'running', write: 'failed', summarize: 'running' } as const;
    expect(renderGraph(workflow, 'mermaid', states)).toBe(`flowchart TD
  n0["fetch<br/>tool"]
  n1["check<br/>command"]
  n2{"route<br/>branch"}
  n3[["fan<br/>parallel"]]
  n4["write<br/>agent"]
  n5["summarize<br/>prompt"]
  n6[["gather<br/>join"]]
  n7[/"ask<br/>human"/]
  n8["kid<br/>child"]
  n9["pause<br/>wait"]
  n10["done<br/>command"]
  n0 --> n1
  n1 -->|"exit_code == 0 (weight 10)"| n3
  n1 -->|"else"| n2
  n2 -->|"stages.check.exit_code == 1 #amp;#amp; inputs.topic in [#quot;weft#quot;, #quot;docs#quot;]"| n3
  n2 -->|"else"| n10
  n3 ==> n4
  n3 ==> n5
  n3 -.->|"join"| n6
  n4 --> n6
  n5 --> n6
  n6 --> n7
  n7 -->|"answer == #quot;ship#quot;"| n8
  n7 -->|"else"| n10
  n8 --> n9
  n9 --> n10
  classDef running fill:#dbeafe,stroke:#2563eb
  class n3,n5 running
  classDef succeeded fill:#dcfce7,stroke:#16a34a
  class n0,n1 succeeded
  classDef failed fill:#fee2e2,stroke:#dc2626
  class n4 failed
`);
  });

  it('colours DOT nodes by state', () => {
    expect(renderGraph(workflow, 'dot', { fetch: 'succeeded', write: 'failed' })).toBe(`digraph "release-check" {
  rankdir=TB;
  node [shape=box, style=rounded, fontname="Helvetica"];
  edge [fontname="Helvetica", fontsize=10];
  "fetch" [label="fetch\\ntool", style="rounded,filled", fillcolor="#dcfce7", color="#16a34a"];
  "check" [label="check\\ncommand"];
  "route" [label="route\\nbranch", shape=diamond];
  "fan" [label="fan\\nparallel", peripheries=2];
  "write" [label="write\\nagent", style="rounded,filled", fillcolor="#fee2e2", color="#dc2626"];
  "summarize" [label="summarize\\nprompt"];
  "gather" [label="gather\\njoin", peripheries=2];
  "ask" [label="ask\\nhuman", shape=parallelogram];
  "kid" [label="kid\\nchild"];
  "pause" [label="pause\\nwait"];
  "done" [label="done\\ncommand"];
  "fetch" -> "check";
  "check" -> "fan" [label="exit_code == 0 (weight 10)"];
  "check" -> "route" [label="else"];
  "route" -> "fan" [label="stages.check.exit_code == 1 && inputs.topic in [\\"weft\\", \\"docs\\"]"];
  "route" -> "done" [label="else"];
  "fan" -> "write" [style=bold];
  "fan" -> "summarize" [style=bold];
  "fan" -> "gather" [style=dashed, label="join"];
  "write" -> "gather";
  "summarize" -> "gather";
  "gather" -> "ask";
  "ask" -> "kid" [label="answer == \\"ship\\""];
  "ask" -> "done" [label="else"];
  "kid" -> "pause";
  "pause" -> "done";
}
`);
  });

  it('escapes quotes and Mermaid specials in labels', () => {
    const tiny: Workflow = {
      ...workflow,
      name: 'say "hi"',
      start: 'a',
      nodes: {
        a: {
          kind: 'branch',
          name: 'a',
          line: 1,
          edges: [
            {
              to: 'b',
              weight: 0,
              line: 2,
              when: { source: 'output == "a|b" || output == "#1"', ast: { type: 'literal', value: true }, references: [] },
            },
          ],
        },
        b: { kind: 'join', name: 'b', line: 3, edges: [] },
      },
    };
    expect(renderGraph(tiny, 'mermaid')).toBe(`flowchart TD
  n0{"a<br/>branch"}
  n1[["b<br/>join"]]
  n0 -->|"output == #quot;a#124;b#quot; #124;#124; output == #quot;#35;1#quot;"| n1
`);
    expect(renderGraph(tiny, 'dot')).toContain(`digraph "say \\"hi\\"" {`);
    expect(renderGraph(tiny, 'dot')).toContain(`"a" -> "b" [label="output == \\"a|b\\" || output == \\"#1\\""];`);
  });
});
