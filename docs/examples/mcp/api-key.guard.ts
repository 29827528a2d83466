import {
  Injectable,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';

/** Who is calling, once the key has been checked. */
export interface Caller {
  tenantId: string;
  role: 'admin' | 'viewer';
}

/** Stands in for your key store. */
export const API_KEYS: Readonly<Record<string, Caller>> = {
  'demo-admin-key': { tenantId: 'acme', role: 'admin' },
  'demo-viewer-key': { tenantId: 'acme', role: 'viewer' },
};

/** An ordinary Nest guard: maps `Authorization: Bearer <key>` to `request.user`, or 401. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{
      headers: Record<string, string | undefined>;
      user?: Caller;
    }>();
    const key = request.headers.authorization?.replace(/^Bearer\s+/i, '');
    const caller = key === undefined ? undefined : API_KEYS[key];
    if (!caller) throw new UnauthorizedException('Send "Authorization: Bearer <key>".');
    request.user = caller;
    return true;
  }
}
