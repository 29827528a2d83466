/** The Nest module of the conformance fixture app: the fixture tools at `/mcp`, and `/conformance/calls`. */
import { Controller, Get, Inject, Module } from '@nestjs/common';
import { ToolsModule } from '../../lib/index.js';
import { ConformanceCalls, conformanceTools } from './conformance.tools.js';

/** `GET /conformance/calls`: how many times each fixture tool's handler ran. */
@Controller('conformance')
export class ConformanceCallsController {
  constructor(@Inject(ConformanceCalls) private readonly calls: ConformanceCalls) {}

  @Get('calls')
  list(): Record<string, number> {
    return this.calls.snapshot();
  }
}

const calls = new ConformanceCalls();

@Module({
  imports: [
    ToolsModule.forRoot({
      registry: conformanceTools(calls),
      mcp: {
        path: '/mcp',
        serverInfo: { name: 'toolwright-conformance', version: '0.1.0' },
        // One client signs nothing in: the fixture says who calls, for its 2025-era questions.
        identify: () => 'conformance-client',
      },
    }),
  ],
  controllers: [ConformanceCallsController],
  providers: [{ provide: ConformanceCalls, useValue: calls }],
})
export class ConformanceAppModule {}
