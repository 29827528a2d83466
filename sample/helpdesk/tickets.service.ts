import { Inject, Injectable } from '@nestjs/common';
import { ToolError } from 'toolwright';
import { DatabaseService } from '../database/database.service.js';
import type { Article, Ticket, TicketWithComments } from './helpdesk.schemas.js';

interface TicketRow {
  id: string;
  title: string;
  body: string;
  status: Ticket['status'];
  priority: Ticket['priority'];
  assignee: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

const toTicket = (row: TicketRow): Ticket => ({
  id: row.id,
  title: row.title,
  body: row.body,
  status: row.status,
  priority: row.priority,
  assignee: row.assignee,
  createdBy: row.created_by,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Tickets and articles of one tenant at a time: every query is scoped by `tenantId`. */
@Injectable()
export class TicketsService {
  constructor(@Inject(DatabaseService) private readonly database: DatabaseService) {}

  private get db() {
    return this.database.db;
  }

  list(tenantId: string, status?: Ticket['status'], limit = 20): Ticket[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM tickets WHERE tenant_id = ? AND (? IS NULL OR status = ?)
         ORDER BY created_at DESC, id DESC LIMIT ?`,
      )
      .all(tenantId, status ?? null, status ?? null, limit) as TicketRow[];
    return rows.map(toTicket);
  }

  get(tenantId: string, id: string): TicketWithComments {
    const row = this.db
      .prepare('SELECT * FROM tickets WHERE tenant_id = ? AND id = ?')
      .get(tenantId, id) as TicketRow | undefined;
    if (!row) {
      throw new ToolError('NOT_FOUND', {
        message: `No ticket ${id}.`,
        hint: 'Call helpdesk_list_tickets to see the ticket ids.',
      });
    }
    const comments = this.db
      .prepare(
        'SELECT author, body, created_at AS createdAt FROM comments WHERE ticket_id = ? ORDER BY id',
      )
      .all(id) as TicketWithComments['comments'];
    return { ...toTicket(row), comments };
  }

  create(
    tenantId: string,
    userId: string,
    input: { title: string; body: string; priority: Ticket['priority'] },
  ): Ticket {
    const now = new Date().toISOString();
    const { n } = this.db
      .prepare('SELECT count(*) AS n FROM tickets WHERE tenant_id = ?')
      .get(tenantId) as { n: number };
    const id = `T-${tenantId.slice(0, 3).toUpperCase()}-${String(n + 1).padStart(4, '0')}`;
    this.db
      .prepare(
        `INSERT INTO tickets (id, tenant_id, title, body, priority, created_by, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, tenantId, input.title, input.body, input.priority, userId, now, now);
    return this.get(tenantId, id);
  }

  update(
    tenantId: string,
    id: string,
    changes: Partial<Pick<Ticket, 'status' | 'priority' | 'assignee'>>,
  ): Ticket {
    const current = this.get(tenantId, id);
    const next = { ...current, ...changes, updatedAt: new Date().toISOString() };
    this.db
      .prepare(
        'UPDATE tickets SET status = ?, priority = ?, assignee = ?, updated_at = ? WHERE tenant_id = ? AND id = ?',
      )
      .run(next.status, next.priority, next.assignee, next.updatedAt, tenantId, id);
    return this.get(tenantId, id);
  }

  addComment(tenantId: string, id: string, author: string, body: string): TicketWithComments {
    this.get(tenantId, id);
    this.db
      .prepare('INSERT INTO comments (ticket_id, author, body, created_at) VALUES (?, ?, ?, ?)')
      .run(id, author, body, new Date().toISOString());
    return this.get(tenantId, id);
  }

  delete(tenantId: string, id: string): void {
    this.get(tenantId, id);
    this.db.prepare('DELETE FROM tickets WHERE tenant_id = ? AND id = ?').run(tenantId, id);
  }

  articles(tenantId: string): Article[] {
    const rows = this.db
      .prepare('SELECT id, title, body, tags FROM articles WHERE tenant_id = ? ORDER BY id')
      .all(tenantId) as {
      id: string;
      title: string;
      body: string;
      tags: string;
    }[];
    return rows.map((row) => ({ ...row, tags: row.tags ? row.tags.split(',') : [] }));
  }
}
