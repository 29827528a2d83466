import { Injectable } from '@nestjs/common';

/** The knowledge base of the example: articles by tenant and slug. */
export abstract class Articles {
  abstract slugs(tenantId: string): string[];
  abstract body(tenantId: string, slug: string): string | undefined;
}

/** Articles kept in memory, by tenant and slug; your application reads its own store instead. */
@Injectable()
export class InMemoryArticles extends Articles {
  private readonly byTenant = new Map([
    [
      'acme',
      new Map([
        ['reset-password', '# Reset a password\n\nUse "Forgot password" on the sign-in page.'],
        ['refunds', '# Refunds\n\nRefunds are paid within 30 days of the request.'],
      ]),
    ],
    ['globex', new Map([['export-data', '# Export your data\n\nSettings → Export, then CSV.']])],
  ]);

  slugs(tenantId: string): string[] {
    return [...(this.byTenant.get(tenantId)?.keys() ?? [])];
  }

  body(tenantId: string, slug: string): string | undefined {
    return this.byTenant.get(tenantId)?.get(slug);
  }
}
