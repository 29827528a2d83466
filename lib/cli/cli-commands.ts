import type { ToolAsk } from '../core/asking.js';
import type { ToolInvoker } from '../core/invoker.js';
import type { ToolDescriptor } from '../core/manifest.js';
import { unknownToolMessage } from '../core/naming.js';
import { toErrorEnvelope } from '../core/result.js';
import type { ToolContext } from '../core/types.js';
import type { CliArgumentsSource, CliRequest } from './cli-arguments.js';
import { cliAsking, cliTerminal, unansweredMessage, type CliOutput } from './cli-asking.js';
import type { CliStdin } from './cli-input.js';
import { isOperationCommand, runOperationCommand } from './cli-operations.js';
import { alignedRows, callReporters, jsonText as json, withNewline } from './cli-output.js';
import { CLI_EXIT_CODES } from './cli-usage.js';

/**
 * Where a command writes its output: text, and the raw bytes of a binary resource `read`
 * (only when it is not a terminal).
 */
export interface CliStdout {
  write(chunk: string | Uint8Array): unknown;
  readonly isTTY?: boolean;
}

/** Where a command writes and asks, and what every call carries. */
export interface CliCommandIO {
  readonly stdout: CliStdout;
  /** Messages, logs and progress; the prompts of a tool's questions when it is a terminal. */
  readonly stderr: CliOutput;
  /**
   * Where a tool's questions are answered: when it and stderr are terminals (`isTTY`), they are
   * asked with prompts. Without it, or off a terminal, only `--yes` answers (confirmations).
   */
  readonly stdin?: CliStdin;
  /**
   * Answers the tool's questions instead of the terminal (an embedding's own prompts); `--yes`
   * still accepts confirmations first.
   */
  readonly ask?: ToolAsk;
  /** The context of every call; `--context` is merged over it. */
  readonly context?: ToolContext;
  /** Cancels a running call (`REQUEST_ABORTED`), closing an open prompt. */
  readonly signal?: AbortSignal;
  /** The program's name, in messages that suggest a command to run. @default 'tools' */
  readonly program?: string;
}

/** A request of `call` or `prompt` with the arguments read in place of where to read them. */
type WithInput<R> = R extends { readonly args: CliArgumentsSource }
  ? Omit<R, 'args'> & { readonly input: unknown }
  : never;

/** A parsed request whose arguments (`call`, `prompt`) have been read. */
export type CliCommand =
  Exclude<CliRequest, { command: 'help' } | { args: CliArgumentsSource }> | WithInput<CliRequest>;

function describeText(tool: ToolDescriptor): string {
  const { identity, annotations } = tool;
  const hints = Object.entries(annotations)
    .filter(([key, value]) => key !== 'title' && value === true)
    .map(([key]) => key);
  return [
    `${tool.name}: ${tool.description}`,
    `service: ${identity.serviceName}  action: ${identity.action}  method: ${identity.method}`,
    ...(hints.length > 0 ? [`annotations: ${hints.join(', ')}`] : []),
    'input schema:',
    json(tool.inputSchema, true),
    ...(tool.outputSchema ? ['output schema:', json(tool.outputSchema, true)] : []),
    '',
  ].join('\n');
}

/**
 * Runs a parsed command against the tools exposed on `CLI` and returns its exit code. `list` and
 * `describe` show only the tools the caller may see (guards' `canList`); `call` runs through the
 * canonical runner (`transport: 'CLI'`, `source: 'cli'`), prints the data (or the failure's JSON
 * envelope, exit 1) on stdout, and the handler's logs and progress on stderr. An unknown tool is
 * exit 2 with the closest names on stderr.
 *
 * A tool's questions (`confirm`, `elicit`) are answered by `--yes` (confirmations), else by
 * `io.ask`, else with prompts on the terminal (stdin and stderr both TTYs). With none of them the
 * question fails the call with `USER_INPUT_UNAVAILABLE`, and the command exits 2 with a message
 * on stderr saying what to do, stdout left empty. A tool that fails with that code for another
 * reason (an `io.ask` that cannot ask, a call of its own) is an ordinary failure, exit 1.
 */
export async function runCliCommand(
  invoker: ToolInvoker,
  command: CliCommand,
  io: CliCommandIO,
): Promise<number> {
  if (isOperationCommand(command)) return runOperationCommand(invoker, command, io);
  const { stdout, stderr } = io;
  const context = command.context ? { ...io.context, ...command.context } : io.context;
  const unknown = (name: string) => {
    stderr.write(`${unknownToolMessage(name, invoker.names('CLI'))}\n`);
    return CLI_EXIT_CODES.USAGE;
  };

  if (command.command === 'list') {
    const tools = await invoker.visible('CLI', { context });
    if (command.json) stdout.write(`${json(tools, false)}\n`);
    else if (tools.length === 0) {
      stderr.write("No tools are exposed on the command line: add 'CLI' to a tool's transports.\n");
    } else stdout.write(alignedRows(tools.map(({ name, description }) => [name, description])));
    return CLI_EXIT_CODES.OK;
  }

  if (command.command === 'describe') {
    const tools = await invoker.visible('CLI', { context });
    const tool = tools.find(({ name }) => name === command.name);
    if (!tool) return unknown(command.name);
    stdout.write(command.json ? `${json(tool, false)}\n` : describeText(tool));
    return CLI_EXIT_CODES.OK;
  }

  if (!invoker.find(command.name, 'CLI')) return unknown(command.name);
  const asking = cliAsking({
    yes: command.yes,
    ask: io.ask,
    terminal: cliTerminal(io.stdin, stderr),
  });
  const result = await invoker.invoke(command.name, command.input, {
    transport: 'CLI',
    source: 'cli',
    context,
    signal: io.signal,
    ask: asking.ask,
    ...callReporters(stderr),
  });
  const refused = asking.refused();
  if (!result.ok && refused && result.error.code === 'USER_INPUT_UNAVAILABLE') {
    stderr.write(unansweredMessage(refused));
    return CLI_EXIT_CODES.USAGE;
  }
  if (!result.ok) {
    stdout.write(`${json(toErrorEnvelope(result.error), !command.json)}\n`);
    return CLI_EXIT_CODES.TOOL_FAILED;
  }
  const { data } = result;
  if (command.json) stdout.write(`${json(data, false)}\n`);
  else if (typeof data === 'string') stdout.write(withNewline(data));
  else if (data !== undefined) stdout.write(`${json(data, true)}\n`);
  return CLI_EXIT_CODES.OK;
}
