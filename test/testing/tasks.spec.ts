/**
 * A tool run as an MCP task through `connectMcpClient`, in memory: the official tasks requester
 * (`@modelcontextprotocol/ext-tasks`) over the 2.x client's 2025-11-25 handshake creates the
 * task, polls it and reads its result, as it would over HTTP; a request naming no caller gets no
 * task, and the developer's fix goes to the log, not to the client.
 */
import { describe, expect, it } from '@jest/globals';
import type { IncomingMessage } from 'node:http';
import {
  createTaskSessionFromClient,
  resultFromTaskOutcome,
} from '@modelcontextprotocol/ext-tasks/client';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool } from '../../lib/core/index.js';
import { MCP_MESSAGES } from '../../lib/mcp/mcp.messages.js';
import { connectMcpClient } from '../../lib/testing/index.js';

const report = defineRuntimeTool({
  description: 'Build a report as a task',
  identity: { serviceName: 'reports', action: 'build', method: 'POST' },
  input: z.object({ rows: z.int().min(1) }),
  output: z.object({ rows: z.int() }),
  task: 'required',
  handler: async ({ input }) => ({ rows: input.rows }),
});

describe('a task through connectMcpClient (2025-11-25)', () => {
  it('is created, polled and read by the official tasks requester', async () => {
    // Tasks are kept per caller: the endpoint knows its callers by a header here.
    const client = await connectMcpClient(createToolInvoker([report]), {
      protocolVersion: '2025-11-25',
      headers: { 'x-user': 'ada' },
      mcp: { identify: (request) => (request as IncomingMessage).headers['x-user'] as string },
    });
    const session = createTaskSessionFromClient(client as never, { endpointId: 'in-memory' });
    try {
      const execution = await session.callTool('reports_build', { rows: 3 });
      const { outcome } = await execution.settle();
      const result = resultFromTaskOutcome(outcome) as Record<string, any>;
      expect(result).toMatchObject({ structuredContent: { rows: 3 } });
      // Task-backed, not answered at once: the result names the task it came from.
      expect(result._meta['io.modelcontextprotocol/related-task']).toEqual({
        taskId: expect.any(String),
      });
    } finally {
      await session.close();
      await client.close();
    }
  });

  it("is refused to a request naming no caller, in the client's words; the fix is logged once", async () => {
    const warned: string[] = [];
    const client = await connectMcpClient(createToolInvoker([report]), {
      protocolVersion: '2025-11-25',
      mcp: { logger: { error: () => undefined, warn: (line: string) => void warned.push(line) } },
    });
    const session = createTaskSessionFromClient(client as never, { endpointId: 'anonymous' });
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        await expect(session.callTool('reports_build', { rows: 1 })).rejects.toThrow(
          'Tasks are kept for the caller that created them, and this request names no caller: ' +
            'send the credentials this server knows its callers by.',
        );
      }
      expect(warned.filter((line) => line.includes('task'))).toEqual([
        MCP_MESSAGES.anonymousTasks(),
      ]);
    } finally {
      await session.close();
      await client.close();
    }
  });
});
