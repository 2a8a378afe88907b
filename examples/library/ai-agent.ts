// An AI SDK agent whose tools are MCP servers' tools, through weft's MCP client: approval
// rules, timeouts and the output budget apply to every call the model makes.
//   OPENAI_API_KEY=… npx tsx examples/library/ai-agent.ts "Remember that Ada likes tea."
// (OPENAI_BASE_URL and MODEL point it at another OpenAI-compatible endpoint and model.)
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs } from 'ai';
import { aiSdkTools } from 'weft-runtime/ai-sdk';
import { connectMcp } from 'weft-runtime/mcp';

const prompt = process.argv[2] ?? 'Remember that Ada likes tea, then tell me what you know about Ada.';
const memoryFile = process.env.MEMORY_FILE_PATH ?? join(tmpdir(), 'weft-example-memory.jsonl');

// The three lines: connect the servers, turn their tools into AI SDK tools, hand them to the model.
const mcp = await connectMcp({
  projectConfig: false,
  servers: { memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: memoryFile } } },
  // The model may read and add to the graph, never delete from it: a refused call is a tool error it sees.
  approval: [{ pattern: 'mcp__memory__delete_*', action: 'deny' }],
  timeoutMs: 30_000,
});
const tools = aiSdkTools(mcp, { dialect: 'openai' });

try {
  const openai = createOpenAI();
  const result = await generateText({
    model: openai.chat(process.env.MODEL ?? 'gpt-4.1-mini'),
    tools,
    stopWhen: stepCountIs(6),
    system: 'You keep notes about people in the memory tools.',
    prompt,
  });
  for (const step of result.steps) {
    for (const part of step.content) {
      if (part.type === 'tool-result') console.log(`${part.toolName}: ok`);
      if (part.type === 'tool-error') console.log(`${part.toolName}: refused (${String(part.error).split('\n')[0]})`);
    }
  }
  console.log(result.text);
} finally {
  await mcp.close();
}
