import { Controller, Get, Inject, Param } from '@nestjs/common';
import { CollectionsService } from './collections.service.js';

/**
 * A REST route over the service. When `invokeOrThrow` rejects, the ToolError leaves the
 * controller and ToolsModule answers it with its status and envelope: 404 for NOT_FOUND.
 */
@Controller('collections')
export class CollectionsController {
  constructor(@Inject(CollectionsService) private readonly collections: CollectionsService) {}

  @Get('outstanding')
  async outstanding() {
    return { outstanding: await this.collections.outstanding() };
  }

  @Get('invoices/:id')
  invoice(@Param('id') id: string) {
    return this.collections.invoice(id);
  }
}
