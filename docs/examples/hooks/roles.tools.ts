import {
  Inject,
  Injectable,
  SetMetadata,
  UseGuards,
  UseInterceptors,
  type CallHandler,
  type CanActivate,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { tap } from 'rxjs';
import { Tool, ToolExecutionContext, ToolFactory } from 'toolwright';
import { z } from 'zod';

export const Roles = (...roles: string[]) => SetMetadata('roles', roles);

/** The application's own HTTP role guard, unchanged: it reads the request and the metadata. */
@Injectable()
export class RolesGuard implements CanActivate {
  constructor(@Inject(Reflector) private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const roles = this.reflector.getAllAndOverride<string[] | undefined>('roles', [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!roles) return true;
    // Inside an HTTP request (an MCP call, a REST route calling the invoker) this is that
    // request; outside one (the CLI, a job) it is undefined, and the guard refuses.
    const request = context.switchToHttp().getRequest<{ user?: { roles: string[] } } | undefined>();
    return roles.some((role) => request?.user?.roles.includes(role));
  }
}

/** Times every call; on a tool call, `ToolExecutionContext` says which tool and surface. */
@Injectable()
export class TimingInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler) {
    const started = performance.now();
    const tool = ToolExecutionContext.create(context);
    return next.handle().pipe(
      tap(() => {
        const label = tool ? `${tool.name} (${tool.transport})` : context.getClass().name;
        console.log(`${label} took ${(performance.now() - started).toFixed(1)} ms`);
      }),
    );
  }
}

@ToolFactory({ serviceName: 'billing' })
@UseInterceptors(TimingInterceptor)
@Injectable()
export class RefundTools {
  @Tool({
    action: 'refund',
    method: 'POST',
    description: 'Refund an invoice',
    input: z.object({ invoiceId: z.string() }),
  })
  @Roles('finance')
  @UseGuards(RolesGuard)
  refund({ input }: { input: { invoiceId: string } }) {
    return { refunded: input.invoiceId };
  }
}
