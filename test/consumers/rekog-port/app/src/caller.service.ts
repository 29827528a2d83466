import { Inject, Injectable, Scope } from '@nestjs/common';
import { REQUEST } from '@nestjs/core';
import type { Member } from './api-key.guard';

/** Request-scoped: one instance per MCP call, reading the member the guard authenticated. */
@Injectable({ scope: Scope.REQUEST })
export class CallerService {
  constructor(@Inject(REQUEST) private readonly request: any) {}

  member(): Member {
    const raw = this.request.getContext().getRawRequest();
    return raw.user;
  }
}
