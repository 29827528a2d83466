import { Catch, Inject, Module, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { APP_FILTER, HttpAdapterHost } from '@nestjs/core';
import { defineToolRegistry, ToolError, ToolsModule } from 'toolwright';
import { SeatsController } from './seats.controller.js';
import { hold, reserve } from './tools.js';

/**
 * An application that answers ToolErrors itself, here in the shape of Nest's own error body
 * (`{ statusCode, error, message }`) that its REST clients already parse.
 */
@Catch(ToolError)
export class NestStyleToolErrorFilter implements ExceptionFilter<ToolError> {
  constructor(@Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost) {}

  catch(error: ToolError, host: ArgumentsHost) {
    const body = { statusCode: error.status, error: error.code, message: error.message };
    this.adapterHost.httpAdapter.reply(host.switchToHttp().getResponse(), body, error.status);
  }
}

@Module({
  imports: [
    ToolsModule.forRoot({
      registry: defineToolRegistry({ defaults: [reserve, hold] }),
      // No global ToolErrorFilter: the application's own filter answers ToolErrors.
      toolErrorFilter: false,
    }),
  ],
  controllers: [SeatsController],
  providers: [{ provide: APP_FILTER, useClass: NestStyleToolErrorFilter }],
})
export class SeatsAppModule {}
