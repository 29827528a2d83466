import {
  Controller,
  Delete,
  Get,
  Inject,
  Injectable,
  Post,
  Req,
  Res,
  type Type,
} from '@nestjs/common';
import type { HttpRequestLike, HttpResponseLike } from '../../mcp/http-framing.js';
import { McpService } from './mcp.service.js';

/**
 * The MCP endpoint: `POST` serves both protocol eras statelessly; `GET` and `DELETE` answer 405.
 * `ToolsModule` mounts it at `mcp.path`. To own the route, guards, interceptors and versioning,
 * set `mcp: false` (or `mcp: { mount: false, ... }`) and extend it:
 *
 * @example
 * @Controller({ path: 'agents/mcp', version: '2' })
 * @UseGuards(ApiKeyGuard)
 * export class AgentMcpController extends McpEndpoint {}
 */
@Injectable()
export class McpEndpoint {
  constructor(@Inject(McpService) protected readonly mcp: McpService) {}

  @Post()
  handle(@Req() request: HttpRequestLike, @Res() response: HttpResponseLike): Promise<void> | void {
    return this.mcp.handle(request, response);
  }

  @Get()
  get(@Res() response: HttpResponseLike): void {
    this.mcp.methodNotAllowed(response);
  }

  @Delete()
  delete(@Res() response: HttpResponseLike): void {
    this.mcp.methodNotAllowed(response);
  }
}

/** The endpoint controller `ToolsModule` mounts: a fresh subclass per module, at `path`. */
export function mcpController(path: string): Type<McpEndpoint> {
  @Controller(path)
  class ToolsMcpController extends McpEndpoint {}
  return ToolsMcpController;
}
