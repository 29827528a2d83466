/**
 * A tool run as an MCP task through `connectMcpClient`, in memory: the official tasks requester
 * (`@modelcontextprotocol/ext-tasks`) over the 2.x client's 2025-11-25 handshake creates the
 * task, polls it and reads its result, as it would over HTTP.
 */
import { describe, expect, it } from '@jest/globals';
import type { IncomingMessage } from 'node:http';
import {
  createTaskSessionFromClient,
  resultFromTaskOutcome,
} from '@modelcontextprotocol/ext-tasks/client';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool } from '../../lib/core/index.js';
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
});
