import { Controller, Get, Inject, Param, UseFilters } from '@nestjs/common';
import { ToolErrorFilter, ToolInvoker } from 'toolwright';

/**
 * A REST route that runs a tool with `invokeOrThrow`. ToolErrorFilter answers a failed call
 * with the error's status and public envelope instead of Nest's 500.
 */
@Controller('seats')
@UseFilters(ToolErrorFilter)
export class SeatsController {
  constructor(@Inject(ToolInvoker) private readonly tools: ToolInvoker) {}

  @Get(':id')
  get(@Param('id') id: string) {
    return this.tools.invokeOrThrow(
      'seats_get_seat',
      { id },
      { transport: 'AGENT', source: 'rest' },
    );
  }
}
