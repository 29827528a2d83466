import { Injectable } from '@nestjs/common';

export interface Order {
  id: string;
  tenantId: string;
  total: number;
  status: 'paid' | 'refunded';
}

/** The application's own service: the port does not touch it. */
@Injectable()
export class OrdersService {
  private readonly orders: Order[] = [
    { id: 'o-1', tenantId: 'acme', total: 120, status: 'paid' },
    { id: 'o-2', tenantId: 'acme', total: 80, status: 'paid' },
    { id: 'o-3', tenantId: 'globex', total: 300, status: 'paid' },
  ];

  list(tenantId: string): Order[] {
    return this.orders.filter((order) => order.tenantId === tenantId);
  }

  find(tenantId: string, id: string): Order | undefined {
    return this.orders.find((order) => order.id === id && order.tenantId === tenantId);
  }

  refund(tenantId: string, id: string): Order | undefined {
    const order = this.find(tenantId, id);
    if (order) order.status = 'refunded';
    return order;
  }
}
