import {
  Controller,
  ForbiddenException,
  Injectable,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { McpEndpoint } from 'toolwright';
import { ApiKeyGuard, type Caller } from '../auth/api-key.guard.js';

/** The users the admin MCP server lets in (after `ApiKeyGuard` has said who calls). */
export const SAMPLE_ADMINS: readonly string[] = ['alice'];

/** Lets in the sample's admins only. */
@Injectable()
export class AdminGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const { user } = context.switchToHttp().getRequest<{ user?: Caller }>();
    if (!user || !SAMPLE_ADMINS.includes(user.userId)) {
      throw new ForbiddenException('The admin MCP server is for administrators.');
    }
    return true;
  }
}

/**
 * The admin MCP server (`mcp.endpoints`' `/admin/mcp`), owned by the application like `/mcp` so
 * its guards run first: an API key, then an administrator. The endpoint it serves is the one
 * configured at its path, with its own tools and server info.
 */
@Controller('admin/mcp')
@UseGuards(ApiKeyGuard, AdminGuard)
export class AdminMcpController extends McpEndpoint {}
