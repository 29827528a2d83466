import { Controller, UseGuards } from '@nestjs/common';
import { McpEndpoint } from 'toolwright';
import { ApiKeyGuard } from './api-key.guard.js';

/**
 * The MCP endpoint as a controller of the application: its route, guards, interceptors and
 * versioning are yours. The guard runs on every MCP request, before any MCP handling.
 */
@Controller('mcp')
@UseGuards(ApiKeyGuard)
export class McpController extends McpEndpoint {}
