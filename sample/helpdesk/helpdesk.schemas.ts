import { z } from 'zod';

/** The context every help desk tool needs: who is calling, for which tenant. */
export const TenantContext = z.object({ tenantId: z.string().min(1), userId: z.string().min(1) });
export type TenantContext = z.infer<typeof TenantContext>;

export const TicketStatus = z.enum(['open', 'pending', 'closed']);
export const TicketPriority = z.enum(['low', 'normal', 'high']);

export const Comment = z.object({ author: z.string(), body: z.string(), createdAt: z.string() });

export const Ticket = z.object({
  id: z.string(),
  title: z.string(),
  body: z.string(),
  status: TicketStatus,
  priority: TicketPriority,
  assignee: z.string().nullable(),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Ticket = z.infer<typeof Ticket>;

export const TicketWithComments = Ticket.extend({ comments: z.array(Comment) });
export type TicketWithComments = z.infer<typeof TicketWithComments>;

export const Article = z.object({
  id: z.string(),
  title: z.string(),
  body: z.string(),
  tags: z.array(z.string()),
});
export type Article = z.infer<typeof Article>;
