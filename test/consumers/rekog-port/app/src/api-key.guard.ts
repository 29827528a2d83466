import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import type { Request } from 'express';

/** Who is calling, once the key has been checked. */
export interface Member {
  id: string;
  name: string;
  scopes: string[];
}

const MEMBERS: Record<string, Member> = {
  'demo-key': { id: 'm-1', name: 'Ada', scopes: ['books:admin'] },
  'visitor-key': { id: 'v-1', name: 'Guest', scopes: [] },
};

/** Guards the MCP route: `x-api-key: <key>` becomes `request.user`, anything else is a 401. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request & { user?: Member }>();
    const member = MEMBERS[String(request.headers['x-api-key'])];
    if (!member) throw new UnauthorizedException('Send an x-api-key header.');
    request.user = member;
    return true;
  }
}
