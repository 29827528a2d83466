import { Inject, Injectable } from '@nestjs/common';
import { interval, map, take } from 'rxjs';
import { Tool, ToolFactory, type ToolCall } from 'toolwright';
import { z } from 'zod';

@Injectable()
export class CatalogService {
  private readonly products = [
    { id: 'p1', title: 'Anvil', stock: 3 },
    { id: 'p2', title: 'Rocket skates', stock: 0 },
  ];

  search(query: string) {
    return this.products.filter((p) => p.title.toLowerCase().includes(query.toLowerCase()));
  }

  restock(id: string, stock: number) {
    const product = this.products.find((p) => p.id === id);
    if (product) product.stock = stock;
    return product ?? null;
  }
}

const Product = z.object({ id: z.string(), title: z.string(), stock: z.number() });

/**
 * A tool class: one identity (`catalog`), no context schema (these tools are not per tenant),
 * a dependency injected by Nest. Each `@Tool` method is one tool.
 */
@ToolFactory({ serviceName: 'catalog', meta: { team: 'shop' } })
@Injectable()
export class CatalogTools {
  constructor(@Inject(CatalogService) private readonly catalog: CatalogService) {}

  @Tool({
    action: 'search',
    method: 'GET',
    description: 'Find products whose title contains the query.',
    input: z.object({ query: z.string().min(1) }),
    output: z.object({ products: z.array(Product) }),
  })
  search({ input }: ToolCall<{ query: string }>) {
    return { products: this.catalog.search(input.query) };
  }

  @Tool({
    action: 'restock',
    method: 'PUT',
    description: 'Set the stock of a product.',
    input: z.object({ id: z.string(), stock: z.number().int().min(0) }),
    output: Product.nullable(),
    transports: ['AGENT'],
  })
  restock({ input }: ToolCall<{ id: string; stock: number }>) {
    return this.catalog.restock(input.id, input.stock);
  }

  /** A handler may return an Observable: its last value is the result. */
  @Tool({
    name: 'catalog_countdown',
    action: 'countdown',
    method: 'GET',
    description: 'Count down from n, then answer the final value.',
    input: z.object({ n: z.number().int().min(1).max(5) }),
    output: z.number(),
  })
  countdown({ input }: ToolCall<{ n: number }>) {
    return interval(10).pipe(
      take(input.n),
      map((i) => input.n - i - 1),
    );
  }
}
