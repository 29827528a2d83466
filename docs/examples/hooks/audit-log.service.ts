import { Injectable } from '@nestjs/common';
import { currentToolCall } from 'toolwright';

/**
 * A service deep below a handler can tell which call it works for, without the call being
 * passed down: `currentToolCall()` reads the call's own async context.
 */
@Injectable()
export class AuditLog {
  readonly entries: { change: string; callId?: string; tool?: string; source?: string }[] = [];

  record(change: string) {
    const call = currentToolCall(); // undefined outside any tool call
    this.entries.push({ change, callId: call?.id, tool: call?.name, source: call?.source });
  }
}
