import type { ToolContext, ToolInvoker } from 'toolwright';

/** Reads, gets and completions in-process: the same pipeline, a `ToolResult` as for tools. */
export async function inProcess(tools: ToolInvoker, context: ToolContext) {
  const article = await tools.readResource('kb://articles/reset-password', {
    transport: 'AGENT',
    context,
  });
  const prompt = await tools.getPrompt(
    'summarise_article',
    { slug: 'reset-password' },
    { transport: 'AGENT', context },
  );
  const slugs = await tools.complete(
    'kb_article',
    { name: 'slug', value: 're' },
    { transport: 'MCP', context },
  );
  const resources = tools.operations('MCP', 'resource'); // as tools.manifest lists tools
  const visible = await tools.visibleOperations('MCP', 'prompt', { context }); // for one caller
  return { article, prompt, slugs, resources, visible };
}
