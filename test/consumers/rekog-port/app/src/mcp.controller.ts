import { Controller, UseGuards } from '@nestjs/common';
import { McpHttpControllerFor, StreamableHttpTransport } from '@rekog/mcp-nest';
import { ApiKeyGuard } from './api-key.guard';

// Stateful, so that progress and elicitation reach 2025-era clients.
export const mcpTransport = new StreamableHttpTransport({ statefulMode: true });

/** The MCP route as a Nest controller: the global prefix and the guard apply (POST /api/mcp). */
@Controller('mcp')
@UseGuards(ApiKeyGuard)
export class McpHttpController extends McpHttpControllerFor(mcpTransport) {}
