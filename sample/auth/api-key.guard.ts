import {
  Inject,
  Injectable,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';

/** Who is calling, once the API key has been checked. */
export interface Caller {
  tenantId: string;
  userId: string;
}

/**
 * Maps an API key (`Authorization: Bearer <key>` or `x-api-key`) to a tenant and a user, and
 * puts them on `request.user`. Guards both the REST routes and the MCP endpoint.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(@Inject(DatabaseService) private readonly database: DatabaseService) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context
      .switchToHttp()
      .getRequest<{ headers: Record<string, unknown>; user?: Caller }>();
    const key = apiKeyOf(request.headers);
    const user = key
      ? (this.database.db
          .prepare('SELECT id AS userId, tenant_id AS tenantId FROM users WHERE api_key = ?')
          .get(key) as Caller | undefined)
      : undefined;
    if (!user) {
      throw new UnauthorizedException('Send a valid API key as "Authorization: Bearer <key>".');
    }
    request.user = user;
    return true;
  }
}

function apiKeyOf(headers: Record<string, unknown>): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === 'string' && authorization.startsWith('Bearer ')) {
    return authorization.slice('Bearer '.length).trim();
  }
  return typeof headers['x-api-key'] === 'string' ? headers['x-api-key'] : undefined;
}
