import { Body, Controller, Inject, Param, Post } from '@nestjs/common';
import { ToolInvoker } from 'toolwright';

/**
 * REST routes that run tools with `invokeOrThrow`. There is no filter to add: a ToolError that
 * leaves a controller is answered with its status and envelope (ToolsModule registers
 * ToolErrorFilter globally), on Express and Fastify.
 */
@Controller('seats')
export class SeatsController {
  constructor(@Inject(ToolInvoker) private readonly tools: ToolInvoker) {}

  /** POST /seats/A1/reservation → 409 {"error":"CONFLICT","message":"Seat A1 is taken.",…} */
  @Post(':seat/reservation')
  reserve(@Param('seat') seat: string) {
    return this.tools.invokeOrThrow('seats_reserve', { seat }, { transport: 'AGENT' });
  }

  /**
   * Here the HTTP caller chooses the tool, and `source` says so: an unknown name is a 404
   * NOT_FOUND that lists the closest names, rather than a bug of this application (a 500).
   */
  @Post('tools/:name')
  call(@Param('name') name: string, @Body() args: Record<string, unknown>) {
    return this.tools.invokeOrThrow(name, args, { transport: 'AGENT', source: 'rest' });
  }
}
