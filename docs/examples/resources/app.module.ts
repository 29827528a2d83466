import { Module } from '@nestjs/common';
import { ToolsModule } from 'toolwright';
import { Articles, InMemoryArticles } from './articles.js';
import { KnowledgeBase } from './knowledge.tools.js';

@Module({
  imports: [
    ToolsModule.forRoot({
      registry: [KnowledgeBase],
      context: (request) => ({ tenantId: request.headers['x-tenant-id'] }),
    }),
  ],
  // The tool class and what it injects: Articles is abstract, so a class implements it.
  providers: [{ provide: Articles, useClass: InMemoryArticles }, KnowledgeBase],
})
export class AppModule {}
