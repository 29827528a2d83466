/**
 * The `@example` blocks of what the Nest layer reads a call's context from: the request's
 * context resolver and the middleware that captures the request. Each `//#region <key>` is the
 * example of the declaration it names, copied into its JSDoc by `node
 * scripts/sync-jsdoc-examples.mjs --write`.
 */
import { Injectable, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { ToolRequestMiddleware, type ToolContextResolver } from 'toolwright';

/** The request as the application's authentication leaves it. */
interface Request {
  headers: Record<string, string | undefined>;
  user?: { sub: string };
}

//#region ToolContextResolver
@Injectable()
export class TenantContext implements ToolContextResolver {
  resolve(request: Request) {
    return { tenantId: request.headers['x-tenant-id'], userId: request.user?.sub };
  }
}
//#endregion

//#region ToolRequestMiddleware
export class AppModule implements NestModule {
  configure(consumer: MiddlewareConsumer) {
    consumer.apply(ToolRequestMiddleware).forRoutes('*path');
  }
}
//#endregion
