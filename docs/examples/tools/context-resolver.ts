import { Inject, Injectable, Module } from '@nestjs/common';
import { defineToolRegistry, ToolsModule, type ToolContextResolver } from 'toolwright';
import { addNote, listNotes } from './factory.js';

@Injectable()
export class TenantDirectory {
  tenantOfHost(host: string | undefined): string | undefined {
    return host?.split('.')[0];
  }
}

/**
 * An injectable resolver: it may use other providers. Called once per tool call made while a
 * request is being handled; its output is the call's raw context.
 */
@Injectable()
export class TenantFromRequest implements ToolContextResolver {
  constructor(@Inject(TenantDirectory) private readonly directory: TenantDirectory) {}

  resolve(request: { headers: Record<string, string | undefined>; user?: { sub: string } }) {
    return {
      tenantId: request.headers['x-tenant-id'] ?? this.directory.tenantOfHost(request.headers.host),
      userId: request.user?.sub,
    };
  }
}

@Module({
  imports: [
    ToolsModule.forRoot({
      registry: defineToolRegistry({ defaults: [addNote, listNotes] }),
      context: TenantFromRequest,
    }),
  ],
  providers: [TenantDirectory, TenantFromRequest],
})
export class NotesAppModule {}
