import type { ToolRunnableConfig } from '@langchain/core/tools';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';
import { inputPending, inputUnavailable, type ToolAsk, type ToolQuestion } from '../core/asking.js';
import { currentFrame } from '../core/call-context.js';
import type { JsonSchema } from '../core/schema.js';

/**
 * The value of the `interrupt()` a tool's question raises inside a LangGraph graph: what the
 * application shows its user. It answers with `new Command({ resume: answer })`, `answer` being
 * a `ToolAnswer` — `{ action: 'accept', content? }`, `{ action: 'decline' }` or
 * `{ action: 'cancel' }`; an elicitation's accepted `content` fits `requestedSchema`.
 *
 * @example
 * if (isInterrupted<ToolInterrupt>(state)) state[INTERRUPT][0].value;
 * // { type: 'toolwright/question', kind: 'confirm', tool: 'tickets_close', toolCallId: 'call_1', message: 'Close ticket T-1?' }
 */
export type ToolInterrupt = {
  readonly type: 'toolwright/question';
  /** The tool that asks (a tool called inside the model's tool call asks under its own name). */
  readonly tool: string;
  /** The id of the model's tool call, when the tool was invoked with one (as a `ToolNode` does). */
  readonly toolCallId?: string;
  readonly message: string;
} & (
  | { readonly kind: 'confirm' }
  | {
      readonly kind: 'elicit';
      /** The JSON Schema of the content to ask for: a flat object, as MCP elicitation sends it. */
      readonly requestedSchema: JsonSchema;
    }
);

/**
 * Whether an interrupt's value is a toolwright question (a graph may interrupt for other reasons).
 *
 * @example
 * const questions = isInterrupted(state)
 *   ? state[INTERRUPT].map((i) => i.value).filter(isToolInterrupt)
 *   : [];
 */
export function isToolInterrupt(value: unknown): value is ToolInterrupt {
  const candidate = value as Partial<ToolInterrupt> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    candidate.type === 'toolwright/question' &&
    (candidate.kind === 'confirm' || candidate.kind === 'elicit') &&
    typeof candidate.message === 'string'
  );
}

// What LangGraph's `interrupt()` itself requires of the config of the task it runs in: the task's
// scratchpad (which counts the task's interrupts and holds its resume values) and a checkpointer.
const SCRATCHPAD = '__pregel_scratchpad';
const CHECKPOINTER = '__pregel_checkpointer';

type LangGraph = typeof import('@langchain/langgraph');
let langGraph: Promise<LangGraph> | undefined;

/**
 * The questions of one LangChain tool call. Inside a LangGraph task with a checkpointer, a
 * question `interrupt()`s: on the first run LangGraph throws its `GraphInterrupt`, which is kept
 * here while the round ends with `INPUT_REQUIRED`, then thrown by {@link settle} once the call
 * has returned, so that the graph pauses; on the run that resumes the task, `interrupt()`
 * returns the answer. Elsewhere, questions go to the application's `ask`.
 */
export class GraphAskRound {
  /** How the call's questions are answered. */
  readonly ask: ToolAsk;
  private interrupted?: { readonly error: unknown };

  constructor(config: ToolRunnableConfig | undefined, fallback: ToolAsk | undefined) {
    const configurable = config?.configurable as Record<string, unknown> | undefined;
    const scratchpad = configurable?.[SCRATCHPAD];
    // Without a graph that can interrupt: the application's `ask`, else that of the toolwright
    // call this one runs in (as the runner does for nested calls), else none.
    if (typeof scratchpad !== 'object' || scratchpad === null) {
      this.ask = fallback ?? currentFrame()?.ask ?? cannotAsk(NO_ASK);
    } else if (!configurable![CHECKPOINTER]) {
      this.ask = fallback ?? currentFrame()?.ask ?? cannotAsk(NO_CHECKPOINTER);
    } else {
      const toolCallId = config!.toolCall?.id;
      this.ask = (question) => this.interrupt(configurable!, question, toolCallId);
    }
  }

  /** Throws the `GraphInterrupt` of a question that stopped the call, if one did. */
  settle(): void {
    if (this.interrupted) throw this.interrupted.error;
  }

  private async interrupt(
    configurable: Record<string, unknown>,
    question: ToolQuestion,
    toolCallId: string | undefined,
  ) {
    const { interrupt, isGraphInterrupt } = await (langGraph ??= import('@langchain/langgraph'));
    const value = interruptValue(question, toolCallId);
    try {
      // interrupt() finds its task through LangChain's async context: set it to this call's, so
      // that a question asked from any async context of the handler reaches the right task.
      return AsyncLocalStorageProviderSingleton.runWithConfig({ configurable }, () =>
        interrupt(value),
      );
    } catch (error) {
      if (!isGraphInterrupt(error)) throw error;
      this.interrupted ??= { error };
      throw inputPending(question.call.name);
    }
  }
}

function interruptValue(question: ToolQuestion, toolCallId: string | undefined): ToolInterrupt {
  const { kind, message, call } = question;
  const value = {
    type: 'toolwright/question',
    kind,
    tool: call.name,
    ...(toolCallId !== undefined && { toolCallId }),
    message,
  } as const;
  return kind === 'confirm'
    ? { ...value, kind }
    : { ...value, kind, requestedSchema: question.requestedSchema };
}

const NO_ASK =
  'Pass `ask` to createLangChainTools, or run the tools in a LangGraph graph with a checkpointer.';
const NO_CHECKPOINTER =
  'Compile the graph with a checkpointer (e.g. MemorySaver), or pass `ask` to createLangChainTools.';

/** The `ask` of a call no one can answer: its questions fail with `USER_INPUT_UNAVAILABLE`. */
function cannotAsk(hint: string): ToolAsk {
  return ({ call }) => {
    throw inputUnavailable(call.name, hint);
  };
}
