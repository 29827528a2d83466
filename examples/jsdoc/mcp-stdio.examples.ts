/**
 * The `@example` of toolwright/mcp's `serveStdio`, with its imports: a region at the top level
 * of its own file (see mcp.examples.ts for the others of toolwright/mcp).
 */
import { pingTool } from './core.examples.js';

//#region serveStdio
import { createToolInvoker } from 'toolwright/core';
import { serveStdio } from 'toolwright/mcp';
serveStdio(createToolInvoker([pingTool]), { serverInfo: { name: 'health', version: '1.0.0' } });
//#endregion
