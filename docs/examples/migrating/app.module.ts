import {
  Controller,
  Injectable,
  Module,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { McpEndpoint, ToolsModule } from 'toolwright';
import { GreetingTools } from './greeting.tools.js';

/** Your existing HTTP guard, unchanged (for example a JWT guard that sets `request.user`). */
@Injectable()
export class JwtAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest();
    request.user = { sub: 'user-1' };
    return true;
  }
}

/** Was `McpModule.forRoot({ guards: [JwtAuthGuard] })`: the guard now sits on your controller. */
@Controller('mcp')
@UseGuards(JwtAuthGuard)
export class McpController extends McpEndpoint {}

@Module({
  imports: [
    // Was McpModule.forRoot({ name: 'my-mcp-server', version: '1.0.0' }).
    ToolsModule.forRoot({
      registry: [GreetingTools],
      // Was the handler's third argument (`request`): tools get what they need as context.
      context: (request: { user?: { sub: string } }) => ({ userId: request.user?.sub }),
      mcp: { mount: false, path: '/mcp', serverInfo: { name: 'my-mcp-server', version: '1.0.0' } },
    }),
  ],
  controllers: [McpController],
  providers: [GreetingTools, JwtAuthGuard],
})
export class AppModule {}
