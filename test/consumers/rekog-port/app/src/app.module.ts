import { Module } from '@nestjs/common';
import { MCP_STRATEGY, McpStrategy } from '@rekog/mcp-nest';
import { ApiKeyGuard } from './api-key.guard';
import { BookTools } from './book.tools';
import { BooksService } from './books.service';
import { CallerService } from './caller.service';
import { DocsResources } from './docs.resources';
import { LibraryPrompts } from './library.prompts';
import { McpHttpController, mcpTransport } from './mcp.controller';

export const mcp = new McpStrategy({
  name: 'library',
  version: '1.0.0',
  instructions: 'Search, read and reserve the books of the city library.',
  transports: [mcpTransport],
});

@Module({
  controllers: [McpHttpController, BookTools, DocsResources, LibraryPrompts],
  providers: [BooksService, CallerService, ApiKeyGuard, { provide: MCP_STRATEGY, useValue: mcp }],
})
export class AppModule {}
