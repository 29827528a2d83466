import { randomBytes } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type InputRequiredResult,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import {
  inputPending,
  type ToolAnswer,
  type ToolAsk,
  type ToolQuestion,
} from '../../../core/asking.js';
import { identityKey } from '../../../core/caller-identity.js';
import { awaitedLater } from '../../../core/detached.js';
import { ToolError } from '../../../core/errors.js';
import { MAX_JSON_DEPTH, valueTooDeep } from '../../../core/json-depth.js';
import type { ToolLogger } from '../../../core/hooks.js';
import type { InstanceBus } from '../../../core/instance-bus.js';
import { digest, elicitationParams, type McpRequestStateOptions } from '../../asking.js';

/** What a `requestState` carries from one round of a call to the next (signed, readable by the client). */
interface AskState {
  readonly v: 1;
  /** Makes every state unique, so that a used one is told apart from a new one. */
  readonly nonce: string;
  readonly tool: string;
  /** A digest of the call's arguments: the next round must call the same tool with the same. */
  readonly args: string;
  /** Who asked: the next round must come from the same caller. */
  readonly caller: string;
  /** A digest of each question asked so far, in order; the last one is the open one. */
  readonly asked: readonly string[];
  /** The answers to every question but the open one. */
  readonly answers: readonly ToolAnswer[];
}

/** The SDK's words for a `requestState` it refuses, so that every refusal reads the same. */
function invalidState(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', {
    reason: 'invalid_request_state',
  });
}

/** Where a spent state is noted on the instance bus, by its nonce. */
const SPENT = 'toolwright:mcp:spent-state:';

/**
 * Multi round-trip input for `tools/call` on the 2026-07-28 era, through the SDK's own support:
 * a handler's question ends the round with `resultType: "input_required"` and a `requestState`
 * sealed by `createRequestStateCodec`; the client answers on a new request, and the handler runs
 * again from the start, its earlier questions answered from the state.
 *
 * A state answers one round only: this instance remembers the states it took, and with an
 * instance `bus` every instance does (the first to note a state on the bus takes it; a replay
 * on another instance gets no answer from it and is refused).
 */
export class McpAsking {
  private readonly codec: RequestStateCodec<AskState>;
  /** The nonces of the states already used, until they expire: a state answers one round only. */
  private readonly used = new Map<string, number>();
  private readonly ttlSeconds: number;
  /** Whether the key was made by this process (a warning is due when requests may reach others). */
  readonly ownKey: boolean;

  constructor(
    options: McpRequestStateOptions = {},
    private readonly bus?: InstanceBus,
    private readonly logger: Pick<ToolLogger, 'error'> = console,
  ) {
    this.ttlSeconds = options.ttlSeconds ?? 600;
    this.ownKey = options.key === undefined;
    this.codec = createRequestStateCodec<AskState>({
      key: options.key ?? randomBytes(32),
      ttlSeconds: this.ttlSeconds,
    });
  }

  /** The SDK's `requestState.verify`: the payload, or a throw it answers `-32602`. */
  readonly verify = (state: string, ctx: ServerContext): Promise<AskState> =>
    this.codec.verify(state, ctx);

  /**
   * Marks a state used once the round it opens is checked (so that a state sent by the wrong
   * caller, or with other arguments, does not spend it); a state this instance took already is
   * refused at once. With a bus, resolves once the state is noted as spent there, and rejects
   * when another instance took it first (`-32602`) or the bus cannot say (`-32603`); without
   * one, returns nothing.
   */
  private claim(nonce: string): Promise<void> | undefined {
    const now = Date.now();
    // Every state lives as long: the oldest expire first, and the scan stops at the first alive.
    for (const [seen, expires] of this.used) {
      if (expires > now) break;
      this.used.delete(seen);
    }
    if (this.used.has(nonce)) throw invalidState();
    const ttlMs = this.ttlSeconds * 1000;
    this.used.set(nonce, now + ttlMs);
    return this.bus?.rememberIfAbsent(SPENT + nonce, '1', ttlMs).then(
      (first) => {
        if (!first) throw invalidState();
      },
      (error: unknown) => {
        // Not spent: a retry may take it, once the bus answers.
        this.used.delete(nonce);
        this.logger.error(
          '[toolwright] MCP: the instance bus could not note a spent requestState:',
          error,
        );
        throw new ProtocolError(
          ProtocolErrorCode.InternalError,
          'The requestState could not be checked; retry the request.',
        );
      },
    );
  }

  /** Refuses a `requestState` sent with a call of a tool that asks nothing: it belongs elsewhere. */
  refuseStray(ctx: ServerContext): void {
    if (ctx.mcpReq.requestState?.() !== undefined) throw invalidState();
  }

  /**
   * One round of a call: the `ask` its handler's questions go through (undefined when the client
   * cannot answer elicitation), and, once the call has run, the `input_required` result when it
   * ended on an open question.
   */
  round(ctx: ServerContext, tool: string, args: unknown, caller: string): McpAskRound {
    return new McpAskRound(this.codec, ctx, tool, args, caller, (nonce) => this.claim(nonce));
  }
}

/** The questions and answers of one round (see {@link McpAsking.round}). */
export class McpAskRound {
  private readonly asked: string[] = [];
  private readonly answers: ToolAnswer[];
  private readonly argsDigest: string;
  private open?: { question: ToolQuestion; digest: string };
  /** The handler asked something else than the state answers: the round is refused. */
  private stale = false;
  /**
   * Settles once the state is known to be spent by this round alone (see `McpAsking.claim`):
   * its answers are given only then, and the round is refused when it rejects.
   */
  private readonly spent?: Promise<void>;
  private next = 0;
  /** Undefined when the client declared no elicitation capability: questions then fail the call. */
  readonly ask?: ToolAsk;

  constructor(
    private readonly codec: RequestStateCodec<AskState>,
    private readonly ctx: ServerContext,
    private readonly tool: string,
    args: unknown,
    private readonly caller: string,
    claim: (nonce: string) => Promise<void> | undefined,
  ) {
    // A digest is a JSON text: arguments deeper than any schema reads are refused first.
    if (valueTooDeep(args)) throw argumentsTooDeep();
    this.argsDigest = digest(args ?? {});
    const state = ctx.mcpReq.requestState?.<AskState>();
    if (state !== undefined) {
      if (
        typeof state !== 'object' ||
        state === null ||
        state.v !== 1 ||
        typeof state.nonce !== 'string' ||
        state.tool !== tool ||
        state.args !== this.argsDigest ||
        state.caller !== caller ||
        !Array.isArray(state.asked) ||
        state.asked.length !== state.answers.length + 1
      ) {
        throw invalidState();
      }
      const spent = claim(state.nonce);
      // Awaited by the handler's first question, or by the end of the round, whichever comes.
      if (spent) this.spent = awaitedLater(spent);
      this.asked.push(...state.asked);
      const view = inputResponse(ctx.mcpReq.inputResponses, keyOf(state.asked.length - 1));
      // No answer to the open question counts as the user cancelling it.
      const last: ToolAnswer =
        view.kind === 'elicit'
          ? view.action === 'accept'
            ? { action: 'accept', content: view.content ?? {} }
            : { action: view.action }
          : { action: 'cancel' };
      this.answers = [...state.answers, last];
    } else {
      this.answers = [];
    }
    const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
    const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as
      { elicitation?: unknown } | undefined;
    if (capabilities?.elicitation !== undefined) this.ask = (question) => this.answer(question);
  }

  private answer(question: ToolQuestion): ToolAnswer | Promise<ToolAnswer> {
    const index = this.next++;
    const asked = digest(
      question.kind === 'confirm'
        ? ['confirm', question.message]
        : ['elicit', question.message, question.requestedSchema],
    );
    if (index < this.answers.length) {
      if (this.asked[index] === asked) {
        const answer = this.answers[index];
        return this.spent ? this.spent.then(() => answer, refusedAnswers) : answer;
      }
      // The handler asked something else this time: the state answers another question.
      this.stale = true;
      throw new ToolError('BAD_REQUEST', {
        message: 'The answers sent belong to other questions.',
      });
    }
    this.open = { question, digest: asked };
    throw inputPending(question.call.name);
  }

  /**
   * Resolves once the round's state is known to be spent by this round alone (at once without a
   * bus, or for a first round); rejects with the SDK's `-32602` when another instance took it,
   * and `-32603` when the bus could not say. Awaited before the handler runs, so that a replay
   * is refused before anything of it runs again.
   */
  taken(): Promise<void> {
    return this.spent ?? Promise.resolve();
  }

  /**
   * The `input_required` result of a round that ended on an open question, or `undefined`.
   * Throws the SDK's `-32602` when the state answered other questions than the handler asked,
   * or was spent by another round (on another instance), and `-32603` when the bus could not
   * say whether it was.
   */
  async inputRequired(): Promise<InputRequiredResult | undefined> {
    await this.spent;
    if (this.stale) throw invalidState();
    const open = this.open;
    if (!open) return undefined;
    const { question } = open;
    const state: AskState = {
      v: 1,
      nonce: randomBytes(12).toString('base64url'),
      tool: this.tool,
      args: this.argsDigest,
      caller: this.caller,
      asked: [...this.asked.slice(0, this.answers.length), open.digest],
      answers: this.answers,
    };
    return inputRequired({
      inputRequests: {
        [keyOf(this.answers.length)]: inputRequired.elicit(elicitationParams(question) as never),
      },
      requestState: await this.codec.mint(state, this.ctx),
    });
  }
}

/** What a handler's question gets from a state another round spent: the round is refused. */
function refusedAnswers(): never {
  throw new ToolError('BAD_REQUEST', {
    message:
      'The answers sent cannot be used: their requestState was used already, or could not be checked.',
  });
}

/** The `-32602` for arguments nested deeper than `MAX_JSON_DEPTH`, which no round can carry. */
function argumentsTooDeep(): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Invalid params: the arguments nest arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`,
  );
}

/** The key of the n-th question of a call in `inputRequests` and `inputResponses`. */
function keyOf(index: number): string {
  return `q${index}`;
}

/**
 * How a 2026-07-28 `tools/call` on the SDK's path asks: a tool that asks gets a round bound to
 * its caller, taken once its state is known to be spent by this round alone; the call of a tool
 * that asks nothing is refused when it carries a `requestState`.
 */
export async function callRound(
  asking: McpAsking,
  identity: () => Promise<string | undefined>,
  ctx: ServerContext,
  params: { readonly name: string; readonly arguments?: unknown },
  asks: boolean,
): Promise<McpAskRound | undefined> {
  if (!asks) {
    asking.refuseStray(ctx);
    return undefined;
  }
  // The state, which the client can read, carries the caller as a digest. An anonymous
  // caller's rounds are bound to no one: any anonymous caller could answer.
  const caller = await identity();
  const round = asking.round(
    ctx,
    params.name,
    params.arguments,
    caller === undefined ? '' : identityKey(caller),
  );
  await round.taken();
  return round;
}
