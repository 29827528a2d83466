import { randomUUID } from 'node:crypto';
import type { ToolAnswer, ToolQuestion } from '../core/asking.js';
import { ToolError } from '../core/errors.js';
import { elicitationParams, unansweredInTime } from './asking.js';

/** The id prefix of the `elicitation/create` requests this process sends. */
const ID_PREFIX = 'tw-elicit-';

/** How many callers' capabilities are remembered; the oldest are forgotten first. */
const REMEMBERED_CALLERS = 10_000;

/** A question waiting for its answer POST. */
interface Waiting {
  /** Who may answer it: the caller that was asked. */
  readonly who: string;
  readonly settle: (message: Record<string, unknown>) => void;
}

/**
 * Elicitation for 2025-era clients served statelessly over HTTP, which the SDK cannot do: each
 * request gets a fresh SDK server that never saw the client's `initialize`, and the client's
 * answer arrives as a separate POST that no server is waiting on.
 *
 * So this process remembers which callers declared the elicitation capability in their
 * `initialize`, writes the `elicitation/create` request on the call's own stream with an
 * unguessable id, and settles the waiting question when a POST carries the response to that id
 * (on this instance: as with cross-request cancellation, a 2025-era client's POSTs must reach the
 * instance that asked). A question left unanswered ends after the wait with `REQUEST_TIMEOUT`;
 * an abandoned call stops waiting at once. Every exit forgets the question.
 */
export class LegacyElicitation {
  /** The callers whose `initialize` declared elicitation, oldest first. */
  private readonly capable = new Set<string>();
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly waitMs: number) {}

  /**
   * Notes what a 2025-era `initialize` declares: whether this caller can answer elicitation.
   * Anything else is not an `initialize` and is ignored.
   */
  remember(caller: string, body: unknown): void {
    const { method, params } = (body ?? {}) as {
      method?: unknown;
      params?: { capabilities?: { elicitation?: unknown } };
    };
    if (method !== 'initialize') return;
    this.capable.delete(caller);
    const elicitation = params?.capabilities?.elicitation;
    if (typeof elicitation !== 'object' || elicitation === null) return;
    this.capable.add(caller);
    if (this.capable.size > REMEMBERED_CALLERS) {
      this.capable.delete(this.capable.values().next().value!);
    }
  }

  /** Whether the caller declared elicitation in its last `initialize` to this process. */
  canAsk(caller: string): boolean {
    return this.capable.has(caller);
  }

  /**
   * Sends the question to the client (`send` writes the request on the call's stream) and
   * resolves to the answer; rejects on a timeout, a client's error answer, or `signal`.
   */
  ask(
    question: ToolQuestion,
    who: string,
    signal: AbortSignal,
    send: (request: Record<string, unknown>) => Promise<void>,
  ): Promise<ToolAnswer> {
    const id = `${ID_PREFIX}${randomUUID()}`;
    return new Promise<ToolAnswer>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      // The client may stop showing the question: tell it, best effort.
      const cancelled = (reason: string) =>
        send({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: id, reason },
        }).catch(() => undefined);
      const timer = setTimeout(() => {
        done();
        void cancelled('No answer in time.');
        reject(unansweredInTime(question.call.name, this.waitMs));
      }, this.waitMs);
      const abandoned = () => {
        done();
        void cancelled('The tool call ended.');
        reject(signal.reason);
      };
      signal.addEventListener('abort', abandoned, { once: true });
      // Every way out goes through here: the question is forgotten, the timer and listener gone.
      const done = () => {
        this.waiting.delete(id);
        clearTimeout(timer);
        signal.removeEventListener('abort', abandoned);
      };
      this.waiting.set(id, {
        who,
        settle: (message) => {
          done();
          try {
            resolve(answerOf(question, message));
          } catch (error) {
            reject(error);
          }
        },
      });
      send({
        jsonrpc: '2.0',
        id,
        method: 'elicitation/create',
        params: elicitationParams(question),
      }).catch((error: unknown) => {
        if (!this.waiting.has(id)) return;
        done();
        reject(error);
      });
    });
  }

  /**
   * Settles the question a POSTed JSON-RPC response answers. Returns whether the message is an
   * answer to a question of this endpoint (asked here or not), which the caller answers `202`
   * as the SDK answers any response it is sent; a response from another caller is ignored.
   */
  settle(body: unknown, who: string): boolean {
    if (!isOurResponse(body)) return false;
    const waiting = this.waiting.get(body.id);
    if (waiting?.who === who) waiting.settle(body);
    return true;
  }

  /** How many questions are waiting for their answer. */
  get size(): number {
    return this.waiting.size;
  }
}

function isOurResponse(body: unknown): body is { id: string } & Record<string, unknown> {
  const message = body as { jsonrpc?: unknown; id?: unknown; method?: unknown } | null;
  return (
    typeof message === 'object' &&
    message !== null &&
    message.jsonrpc === '2.0' &&
    message.method === undefined &&
    typeof message.id === 'string' &&
    message.id.startsWith(ID_PREFIX) &&
    ('result' in message || 'error' in message)
  );
}

/** The answer in a client's response to an `elicitation/create`. */
function answerOf(question: ToolQuestion, message: Record<string, unknown>): ToolAnswer {
  const result = message.result as { action?: unknown; content?: unknown } | undefined;
  if (result === undefined) {
    const { message: text } = (message.error ?? {}) as { message?: unknown };
    throw new ToolError('USER_INPUT_UNAVAILABLE', {
      message: `Tool "${question.call.name}" asked the user, and the client answered with an error${typeof text === 'string' ? `: ${text}` : ''}.`,
    });
  }
  const { action, content } = result ?? {};
  if (action === 'accept') {
    return {
      action,
      content: typeof content === 'object' && content !== null ? (content as never) : {},
    };
  }
  if (action === 'decline' || action === 'cancel') return { action };
  throw new ToolError('BAD_REQUEST', {
    message: `The answer to a question of "${question.call.name}" must have the action accept, decline or cancel.`,
  });
}
