import { Controller, UseGuards } from '@nestjs/common';
import { McpEndpoint } from 'toolwright';
import { ApiKeyGuard } from '../auth/api-key.guard.js';

/**
 * The MCP endpoint, owned by the application so its own guard runs before any MCP handling:
 * a request without a valid API key never reaches a tool.
 */
@Controller('mcp')
@UseGuards(ApiKeyGuard)
export class McpController extends McpEndpoint {}
