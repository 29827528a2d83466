import { randomUUID } from 'node:crypto';
import {
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import {
  adviseOnce,
  type ToolAnswer,
  type ToolAsk,
  type ToolQuestion,
} from '../../../core/asking.js';
import { attempt, detached, detachedListener, ignore } from '../../../core/detached.js';
import { ToolError } from '../../../core/errors.js';
import type { InstanceBus } from '../../../core/instance-bus.js';
import type { ToolLogger } from '../../../core/hooks.js';
import { answerOf, digest, elicitationParams, unansweredInTime } from '../../asking.js';
import { MCP_MESSAGES } from '../../mcp.messages.js';

/** The id prefix of the `elicitation/create` requests this endpoint sends. */
const ID_PREFIX = 'tw-elicit-';
/** Where an answer that reached another instance is passed on. */
const ANSWERS = 'toolwright:mcp:answers';
/** How long a caller's declaration of elicitation is remembered after its `initialize`. */
const DECLARATION_TTL_MS = 24 * 60 * 60 * 1000;
/** How many questions one caller may have waiting for an answer in one process. */
export const MAX_QUESTIONS_PER_CALLER = 16;

/** An answer passed on to the other instances: the caller travels as a digest. */
interface PassedAnswer {
  readonly who: string;
  readonly message: { id: string } & Record<string, unknown>;
}

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
 * So the endpoint remembers, on the instance bus, which callers declared the elicitation
 * capability in their `initialize`; writes the `elicitation/create` request on the call's own
 * stream with an unguessable id; and settles the waiting question when a POST carries the
 * response to that id. An answer that reaches another instance is passed on over the bus to
 * every instance, and the one that asked settles it. A question left unanswered ends after the
 * wait with `REQUEST_TIMEOUT`; an abandoned call stops waiting at once. Every exit forgets the
 * question. Callers are their identities (see `IdentifyCaller`): one declaration each, at most
 * {@link MAX_QUESTIONS_PER_CALLER} questions waiting each; they leave the process only as
 * digests.
 */
export class LegacyElicitation {
  private readonly waiting = new Map<string, Waiting>();
  /** How many questions each caller has waiting here. */
  private readonly waitingPerCaller = new Map<string, number>();

  constructor(
    private readonly waitMs: number,
    private readonly bus: InstanceBus,
    private readonly logger: Pick<ToolLogger, 'error'>,
  ) {}

  /**
   * Starts hearing the answers that reach other instances; resolves to the function that
   * stops.
   */
  listen(): Promise<() => Promise<void>> {
    return this.bus.subscribe(
      ANSWERS,
      detachedListener((text: string) => {
        const { who, message } = JSON.parse(text) as PassedAnswer;
        const waiting = this.waiting.get(message.id);
        if (waiting && digest(waiting.who) === who) waiting.settle(message);
      }, this.reportBusMessage),
    );
  }

  /** Whether a POSTed message is one this keeps state for: an answer of ours, or an `initialize`. */
  concerns(body: unknown): boolean {
    return isOurResponse(body) || (body as { method?: unknown } | null)?.method === 'initialize';
  }

  /**
   * Notes what a 2025-era `initialize` declares, for every instance: whether this caller can
   * answer elicitation (its last `initialize` counts); resolves once noted, never rejects. A
   * request that names no caller is noted nowhere. A note that cannot be kept is logged, and
   * the `initialize` is answered all the same.
   */
  async remember(caller: string | undefined, body: unknown): Promise<void> {
    const { method, params } = (body ?? {}) as {
      method?: unknown;
      params?: { capabilities?: { elicitation?: unknown } };
    };
    if (method !== 'initialize' || caller === undefined) return;
    const elicitation = params?.capabilities?.elicitation;
    const capable = typeof elicitation === 'object' && elicitation !== null;
    await this.bus
      .remember(declarationKey(caller), capable ? '1' : '0', DECLARATION_TTL_MS)
      .catch((error: unknown) => {
        this.logger.error(
          '[toolwright] MCP: a client’s elicitation capability could not be noted on the instance bus:',
          error,
        );
      });
  }

  /**
   * Whether the caller declared elicitation in its last `initialize`, to any instance. A bus
   * that cannot answer rejects: the question cannot be asked.
   */
  async canAsk(caller: string): Promise<boolean> {
    return (await this.bus.recall(declarationKey(caller))) === '1';
  }

  /**
   * Sends the question to the client (`send` writes the request on the call's stream) and
   * resolves to the answer; rejects on a timeout, a client's error answer, `signal`, a stream
   * that could not take the question, or a caller with {@link MAX_QUESTIONS_PER_CALLER}
   * questions waiting already. What runs after the call is gone (the timer, the abort, the
   * notice that the question is withdrawn) never throws.
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
      const asked = this.waitingPerCaller.get(who) ?? 0;
      if (asked >= MAX_QUESTIONS_PER_CALLER) return reject(tooManyQuestions(question));
      // The client may stop showing the question: tell it, best effort (its stream may be gone).
      const withdrawn = (reason: string) =>
        detached(
          () =>
            send({
              jsonrpc: '2.0',
              method: 'notifications/cancelled',
              params: { requestId: id, reason },
            }),
          ignore,
        );
      const timer = setTimeout(
        detachedListener(() => {
          done();
          withdrawn('No answer in time.');
          reject(unansweredInTime(question.call.name, this.waitMs));
        }, this.reportLate),
        this.waitMs,
      );
      const abandoned = detachedListener(() => {
        done();
        withdrawn('The tool call ended.');
        reject(signal.reason);
      }, this.reportLate);
      signal.addEventListener('abort', abandoned, { once: true });
      // Every way out goes through here, once: the question is forgotten, the timer and
      // listener gone.
      const done = () => {
        if (!this.waiting.delete(id)) return;
        const left = (this.waitingPerCaller.get(who) ?? 1) - 1;
        if (left > 0) this.waitingPerCaller.set(who, left);
        else this.waitingPerCaller.delete(who);
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
      this.waitingPerCaller.set(who, asked + 1);
      void attempt(
        () =>
          send({
            jsonrpc: '2.0',
            id,
            method: 'elicitation/create',
            params: elicitationParams(question),
          }),
        (error) => {
          if (!this.waiting.has(id)) return;
          done();
          reject(error);
        },
      );
    });
  }

  /**
   * Settles the question a POSTed JSON-RPC response answers: here when it was asked here,
   * otherwise on the instance that asked, over the bus. Returns `false` for a message that is
   * not an answer to a question of this endpoint; otherwise a promise that resolves once the
   * answer is settled or passed on (the caller then answers `202`, as the SDK answers any
   * response it is sent), and rejects when the bus could not take it. A response from another
   * caller than the one asked, or from a request that names no caller, is ignored.
   */
  settle(body: unknown, who: string | undefined): false | Promise<void> {
    if (!isOurResponse(body)) return false;
    if (who === undefined) return Promise.resolve();
    const waiting = this.waiting.get(body.id);
    if (waiting) {
      if (waiting.who === who) waiting.settle(body);
      return Promise.resolve();
    }
    const passed: PassedAnswer = { who: digest(who), message: body };
    return this.bus.publish(ANSWERS, JSON.stringify(passed));
  }

  private readonly reportBusMessage = (error: unknown) =>
    this.logger.error(
      '[toolwright] MCP: an answer passed on by another instance could not be read:',
      error,
    );

  private readonly reportLate = (error: unknown) =>
    this.logger.error('[toolwright] MCP: a question’s timer or abort failed:', error);

  /** How many questions are waiting for their answer. */
  get size(): number {
    return this.waiting.size;
  }
}

/** The refusal of a question from a caller with too many waiting already. */
function tooManyQuestions(question: ToolQuestion): ToolError {
  return new ToolError('RATE_LIMITED', {
    message: `Tool "${question.call.name}" could not ask the user: ${MAX_QUESTIONS_PER_CALLER} questions of this caller are waiting for an answer already.`,
    hint: 'Answer or cancel the questions waiting, then call the tool again.',
  });
}

/** Where the bus keeps whether a caller declared elicitation. */
function declarationKey(caller: string): string {
  return `toolwright:mcp:elicitation:${digest(caller)}`;
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

/** What a 2025-era call's questions go through (see {@link legacyAsk}). */
export interface LegacyAsking {
  /** Questions to clients served statelessly (HTTP); `undefined` on stdio. */
  readonly elicitation?: LegacyElicitation;
  /** How long a question waits for its answer, in milliseconds. */
  readonly waitMs: number;
  readonly logger: Pick<ToolLogger, 'error' | 'warn'>;
  /** Who is calling; never rejects. */
  readonly identity: () => Promise<string | undefined>;
}

/**
 * How a 2025-era call asks, when its client declared elicitation: over stateless HTTP through
 * {@link LegacyElicitation} (the SDK server of the request never saw the client's
 * `initialize`), otherwise (stdio) through the SDK's own `elicitation/create`.
 */
export async function legacyAsk(
  { elicitation, waitMs, logger, identity }: LegacyAsking,
  server: Server,
  ctx: ServerContext,
): Promise<ToolAsk | undefined> {
  if (elicitation) {
    const caller = await identity();
    if (caller === undefined) return askingNeedsIdentity(logger);
    try {
      if (!(await elicitation.canAsk(caller))) return undefined;
    } catch (error) {
      // Whether the client can answer is on the bus, which did not say: asking fails.
      logger.error('[toolwright] MCP: the instance bus could not be read:', error);
      return (question) =>
        Promise.reject(
          new ToolError('SERVICE_UNAVAILABLE', {
            message: `Tool "${question.call.name}" could not ask the user: the instance bus did not answer.`,
          }),
        );
    }
    return (question, { signal }) =>
      elicitation.ask(question, caller, signal, (message) =>
        sendOnStream(server, message, ctx.mcpReq.id),
      );
  }
  if (server.getClientCapabilities()?.elicitation === undefined) return undefined;
  return async (question, { signal }) => {
    try {
      const answer = await ctx.mcpReq.elicitInput(elicitationParams(question) as never, {
        signal,
        timeout: waitMs,
      });
      return answer.action === 'accept'
        ? { action: 'accept', content: answer.content ?? {} }
        : { action: answer.action };
    } catch (error) {
      throw elicitationFailure(question, error, waitMs);
    }
  };
}

/**
 * How a 2025-era question fails over HTTP when its request names no caller: its answer comes
 * as a request of its own, which could not be told apart from another anonymous caller's.
 */
function askingNeedsIdentity(logger: LegacyAsking['logger']): ToolAsk {
  return (question) => {
    adviseOnce(logger, MCP_MESSAGES.anonymousQuestion(question.call.name));
    return Promise.reject(
      new ToolError('USER_INPUT_UNAVAILABLE', {
        message:
          `Tool "${question.call.name}" could not ask the user: a 2025-era client answers in a ` +
          'request of its own, and this request names no caller to match it with.',
        hint:
          'Send the credentials this server knows callers by, or use a client of the ' +
          '2026-07-28 revision, which answers within the same call.',
      }),
    );
  };
}

/**
 * Writes a message on the stream of the request `relatedRequestId` (an `elicitation/create`, a
 * `notifications/cancelled`); rejects, never throws, once the request's server has closed.
 */
function sendOnStream(server: Server, message: unknown, relatedRequestId: unknown): Promise<void> {
  const { transport } = server;
  if (!transport) return Promise.reject(new Error('The request’s stream is closed.'));
  return transport.send(message as never, { relatedRequestId: relatedRequestId as never });
}

/** A failed `elicitation/create` of the SDK, as the handler's question fails. */
function elicitationFailure(question: ToolQuestion, error: unknown, waitMs: number): unknown {
  const tool = question.call.name;
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    return unansweredInTime(tool, waitMs);
  }
  if (error instanceof ProtocolError && error.code === ProtocolErrorCode.InvalidParams) {
    return new ToolError('VALIDATION_ERROR', {
      message: `The user's answer to "${tool}" does not fit the schema it asked with.`,
    });
  }
  if (error instanceof ProtocolError) {
    return new ToolError('USER_INPUT_UNAVAILABLE', {
      message: `Tool "${tool}" asked the user, and the client answered with an error: ${error.message}`,
    });
  }
  return error;
}
