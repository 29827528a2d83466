import { Ctx, Payload, RpcException } from '@nestjs/microservices';
import { McpContext, McpController, Tool, ToolScopes } from '@rekog/mcp-nest';
import { z } from 'zod';
import { BooksService } from './books.service';
import { CallerService } from './caller.service';

const Book = z.object({
  id: z.string(),
  title: z.string(),
  author: z.string(),
  available: z.boolean(),
});

@McpController()
export class BookTools {
  constructor(
    private readonly books: BooksService,
    private readonly caller: CallerService,
  ) {}

  @Tool({
    name: 'search-books',
    description: 'Search the catalogue by title.',
    parameters: z.object({
      query: z.string().describe('Words of the title'),
      limit: z.number().int().min(1).max(10).default(5),
    }),
    outputSchema: z.object({ books: z.array(Book) }),
  })
  search(@Payload() { query, limit }: { query: string; limit: number }) {
    return { books: this.books.search(query, limit) };
  }

  @Tool({
    name: 'get-book',
    description: 'Fetch one book by id.',
    parameters: z.object({ id: z.string() }),
  })
  getBook(@Payload() { id }: { id: string }) {
    const book = this.books.find(id);
    if (!book) throw new RpcException(`No book ${id}.`);
    return { content: [{ type: 'text', text: JSON.stringify(book) }] };
  }

  @Tool({
    name: 'export-catalog',
    description: 'Export the catalogue as CSV, one page at a time.',
    parameters: z.object({ pageSize: z.number().int().min(1).max(10).default(2) }),
  })
  async exportCatalog(@Payload() { pageSize }: { pageSize: number }, @Ctx() ctx: McpContext) {
    const books = this.books.all();
    const pages = Math.ceil(books.length / pageSize);
    const lines = ['id,title'];
    for (let page = 0; page < pages; page++) {
      for (const book of books.slice(page * pageSize, (page + 1) * pageSize)) {
        lines.push(`${book.id},${book.title}`);
      }
      await ctx.reportProgress({ progress: page + 1, total: pages });
    }
    return { csv: lines.join('\n'), rows: books.length };
  }

  @Tool({
    name: 'reserve-book',
    description: 'Reserve a book; asks the member where to pick it up.',
    parameters: z.object({ id: z.string() }),
  })
  async reserve(@Payload() { id }: { id: string }, @Ctx() ctx: McpContext) {
    const book = this.books.find(id);
    if (!book) throw new RpcException(`No book ${id}.`);
    const answer = await ctx.mcpServer.server.elicitInput({
      message: `Where do you want to pick up "${book.title}"?`,
      requestedSchema: {
        type: 'object',
        properties: {
          branch: { type: 'string', enum: ['central', 'riverside'], description: 'Branch' },
        },
        required: ['branch'],
      },
    });
    if (answer.action !== 'accept') return `"${book.title}" was not reserved.`;
    return `"${book.title}" is reserved at ${String(answer.content?.branch)}.`;
  }

  @Tool({
    name: 'remove-book',
    description: 'Remove a book from the catalogue. Librarians only.',
    parameters: z.object({ id: z.string() }),
  })
  @ToolScopes(['books:admin'])
  removeBook(@Payload() { id }: { id: string }) {
    return { removed: id };
  }

  @Tool({ description: 'Opening hours of the library.' })
  libraryHours() {
    return 'Open 9:00-18:00, Monday to Saturday.';
  }

  @Tool({ name: 'whoami', description: 'The member calling.' })
  whoami() {
    return this.caller.member();
  }
}
