import { Inject, Injectable } from '@nestjs/common';
import {
  Prompt,
  ResourceTemplate,
  Tool,
  ToolError,
  ToolFactory,
  type ResourceCall,
  type ToolCall,
} from 'toolwright';
import { z } from 'zod';
import {
  TenantContext,
  Ticket,
  TicketPriority,
  TicketStatus,
  TicketWithComments,
} from './helpdesk.schemas.js';
import { TICKETS_READ, TICKETS_WRITE } from './helpdesk.scopes.js';
import { TicketsService } from './tickets.service.js';

type Call<I> = ToolCall<I, TenantContext>;

/** How long exporting one ticket takes (`HELPDESK_EXPORT_PAUSE_MS`, default 1 s). */
const EXPORT_PAUSE_MS = Number(process.env.HELPDESK_EXPORT_PAUSE_MS ?? 1000);

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}

/** A CSV field, quoted when it holds a comma, a quote or a line break. */
function csvField(value: string): string {
  return /[",\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** What creating a ticket without a priority asks the user. */
const PriorityQuestion = z.object({
  priority: TicketPriority.default('normal').meta({ title: 'Priority' }),
});

/**
 * The ticket tools of the help desk feature: one class, one identity (`helpdesk`, scope
 * `tenant`), one context schema. Each method is a tool; its semantic method sets the MCP hints.
 * Every tool needs the OAuth scope `tickets:read`; the ones that change tickets `tickets:write`
 * as well (the class's scopes and a method's add up).
 */
@ToolFactory({
  serviceName: 'helpdesk',
  scope: 'tenant',
  context: TenantContext,
  scopes: [TICKETS_READ],
})
@Injectable()
export class TicketTools {
  constructor(@Inject(TicketsService) private readonly tickets: TicketsService) {}

  @Tool({
    action: 'listTickets',
    method: 'GET',
    description: 'List the tenant’s tickets, newest first, optionally by status.',
    input: z.object({
      status: TicketStatus.optional(),
      limit: z.number().int().min(1).max(100).default(20),
    }),
    output: z.object({ tickets: z.array(Ticket) }),
    transports: ['MCP', 'AGENT', 'CLI'],
  })
  list({ input, context }: Call<{ status?: Ticket['status']; limit: number }>) {
    return { tickets: this.tickets.list(context.tenantId, input.status, input.limit) };
  }

  @Tool({
    action: 'getTicket',
    method: 'GET',
    description: 'Read one ticket with its comments.',
    input: z.object({ id: z.string().describe('A ticket id such as T-1001') }),
    output: TicketWithComments,
    transports: ['MCP', 'AGENT', 'CLI'],
    // MCP clients get a readable summary; structuredContent still carries the ticket.
    present: {
      mcp: (ticket: TicketWithComments) => ({
        content: [
          {
            type: 'text',
            text: [
              `# ${ticket.id}: ${ticket.title}`,
              `Status: ${ticket.status} · Priority: ${ticket.priority} · Assignee: ${ticket.assignee ?? 'nobody'}`,
              '',
              ticket.body,
              ...ticket.comments.map((c) => `\n— ${c.author}: ${c.body}`),
            ].join('\n'),
          },
        ],
      }),
    },
  })
  get({ input, context }: Call<{ id: string }>) {
    return this.tickets.get(context.tenantId, input.id);
  }

  @Tool({
    action: 'createTicket',
    method: 'POST',
    scopes: [TICKETS_WRITE],
    description: 'Open a new ticket for the tenant. Without a priority, the user is asked for one.',
    input: z.object({
      title: z.string().min(3).max(200),
      body: z.string().min(1),
      priority: TicketPriority.optional(),
    }),
    output: Ticket,
    transports: ['MCP', 'AGENT', 'CLI'],
    asks: { elicit: [PriorityQuestion] },
  })
  async create({
    input,
    context,
    elicit,
  }: Call<{ title: string; body: string; priority?: Ticket['priority'] }>) {
    // Nothing is written before the question: the call may run again with the answer.
    let { priority } = input;
    if (priority === undefined) {
      const answer = await elicit({
        message: `What priority should “${input.title}” have?`,
        schema: PriorityQuestion,
      });
      if (answer.action === 'cancel') {
        throw new ToolError('REQUEST_ABORTED', { message: 'Cancelled: no ticket was opened.' });
      }
      priority = answer.action === 'accept' ? answer.content.priority : 'normal';
    }
    return this.tickets.create(context.tenantId, context.userId, { ...input, priority });
  }

  @Tool({
    action: 'closeTicket',
    method: 'POST',
    scopes: [TICKETS_WRITE],
    description: 'Close a ticket, once the user confirms.',
    input: z.object({ id: z.string().describe('A ticket id such as T-1001') }),
    output: z.object({ closed: z.boolean(), ticket: Ticket }),
    transports: ['MCP', 'AGENT', 'CLI'],
    asks: { confirm: true },
  })
  async close({ input, context, confirm }: Call<{ id: string }>) {
    const ticket = this.tickets.get(context.tenantId, input.id);
    if (ticket.status === 'closed') return { closed: true, ticket };
    if (
      !(await confirm(`Close ${ticket.id} “${ticket.title}”? The requester is told it is done.`))
    ) {
      return { closed: false, ticket };
    }
    return {
      closed: true,
      ticket: this.tickets.update(context.tenantId, ticket.id, { status: 'closed' }),
    };
  }

  @ResourceTemplate({
    uriTemplate: 'helpdesk://tickets/{id}',
    name: 'ticket',
    title: 'Ticket',
    description: 'One ticket of the tenant with its comments, as JSON.',
    mimeType: 'application/json',
    variables: z.object({ id: z.string() }),
    complete: { id: 'ticketIds' },
    transports: ['MCP', 'AGENT', 'CLI'],
  })
  ticket({ input, context }: ResourceCall<{ id: string }, TenantContext>) {
    return JSON.stringify(this.tickets.get(context.tenantId, input.id), null, 2);
  }

  @Prompt({
    name: 'triage_ticket',
    title: 'Triage a ticket',
    description: 'Read a ticket and propose a priority, an assignee and a first answer.',
    args: z.object({ id: z.string().describe('A ticket id such as T-1001') }),
    complete: { id: 'ticketIds' },
    transports: ['MCP', 'AGENT', 'CLI'],
  })
  triage({ input, context }: Call<{ id: string }>) {
    const ticket = this.tickets.get(context.tenantId, input.id);
    return {
      description: `Triage ${ticket.id}: ${ticket.title}`,
      messages: [
        {
          role: 'user' as const,
          content: {
            type: 'resource',
            resource: {
              uri: `helpdesk://tickets/${ticket.id}`,
              mimeType: 'application/json',
              text: JSON.stringify(ticket, null, 2),
            },
          },
        },
        {
          role: 'user' as const,
          content: {
            type: 'text',
            text:
              'Triage the ticket above: propose a priority (low, normal or high) with one ' +
              'sentence of reason, who should own it, and a short first answer to the requester. ' +
              'Search the knowledge base (helpdesk_search_articles) before answering.',
          },
        },
      ],
    };
  }

  /** The ids of the caller's tickets that start with what the user typed. */
  ticketIds(value: string, { context }: { context: Partial<TenantContext> }) {
    if (typeof context.tenantId !== 'string') return [];
    return this.tickets
      .list(context.tenantId, undefined, 100)
      .map(({ id }) => id)
      .filter((id) => id.toLowerCase().startsWith(value.toLowerCase()));
  }

  @Tool({
    action: 'updateTicket',
    method: 'PATCH',
    scopes: [TICKETS_WRITE],
    description: 'Change the status or priority of a ticket.',
    input: z
      .object({
        id: z.string(),
        status: TicketStatus.optional(),
        priority: TicketPriority.optional(),
      })
      .refine(
        (v) => v.status !== undefined || v.priority !== undefined,
        'Give a status or a priority',
      ),
    output: Ticket,
  })
  update({
    input,
    context,
  }: Call<{ id: string; status?: Ticket['status']; priority?: Ticket['priority'] }>) {
    const { id, ...changes } = input;
    return this.tickets.update(context.tenantId, id, changes);
  }

  @Tool({
    action: 'assignTicket',
    method: 'PUT',
    scopes: [TICKETS_WRITE],
    description: 'Assign a ticket to a user (idempotent).',
    input: z.object({ id: z.string(), assignee: z.string().min(1) }),
    output: Ticket,
  })
  assign({ input, context }: Call<{ id: string; assignee: string }>) {
    return this.tickets.update(context.tenantId, input.id, { assignee: input.assignee });
  }

  @Tool({
    action: 'addComment',
    method: 'POST',
    scopes: [TICKETS_WRITE],
    description: 'Add a comment to a ticket as the current user.',
    input: z.object({ id: z.string(), body: z.string().min(1) }),
    output: TicketWithComments,
  })
  comment({ input, context }: Call<{ id: string; body: string }>) {
    return this.tickets.addComment(context.tenantId, input.id, context.userId, input.body);
  }

  @Tool({
    action: 'exportTickets',
    method: 'GET',
    description:
      'Export all the tenant’s tickets as CSV. Long-running: MCP clients that support tasks get a task to poll.',
    input: z.object({ status: TicketStatus.optional() }),
    output: z.object({ count: z.number().int(), csv: z.string() }),
    // MCP clients may run it as a task: the handle at once, the CSV when the export is done.
    task: 'optional',
  })
  async export({
    input,
    context,
    signal,
    reportProgress,
  }: Call<{ status?: Ticket['status'] }>): Promise<{ count: number; csv: string }> {
    const tickets = this.tickets.list(context.tenantId, input.status, 1000);
    const rows = ['id,status,priority,assignee,title'];
    for (const [index, ticket] of tickets.entries()) {
      // Stands for the slow part of a real export (rendering, uploading): a pause per ticket,
      // which a cancellation cuts short.
      await pause(EXPORT_PAUSE_MS, signal);
      rows.push(
        [ticket.id, ticket.status, ticket.priority, ticket.assignee ?? '', ticket.title]
          .map(csvField)
          .join(','),
      );
      reportProgress({
        progress: index + 1,
        total: tickets.length,
        message: `Exported ${index + 1} of ${tickets.length} tickets`,
      });
    }
    return { count: tickets.length, csv: rows.join('\n') };
  }

  @Tool({
    action: 'deleteTicket',
    method: 'DELETE',
    scopes: [TICKETS_WRITE],
    description: 'Delete a ticket and its comments.',
    input: z.object({ id: z.string() }),
    output: z.object({ deleted: z.literal(true) }),
  })
  delete({ input, context }: Call<{ id: string }>) {
    this.tickets.delete(context.tenantId, input.id);
    return { deleted: true as const };
  }
}
