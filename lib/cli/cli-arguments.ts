import { parseArgs } from 'node:util';
import { similarNames } from '../core/naming.js';
import type { ToolContext } from '../core/types.js';
import { CliUsageError } from './cli-usage.js';

/**
 * Where `call` takes the tool's arguments from.
 *
 * @example
 * parseCliArguments(['call', 'orders_get', '--args-file', '-']).args; // { from: 'stdin', explicit: true }
 */
export type CliArgumentsSource =
  | { readonly from: 'inline'; readonly value: unknown }
  | { readonly from: 'file'; readonly path: string }
  | { readonly from: 'stdin'; readonly explicit: boolean };

/**
 * A command line, parsed and checked.
 *
 * @example
 * parseCliArguments(['describe', 'orders_get', '--json']); // { command: 'describe', name: 'orders_get', json: true }
 */
export type CliRequest =
  | { readonly command: 'help' }
  | { readonly command: 'list'; readonly json: boolean; readonly context?: ToolContext }
  | {
      readonly command: 'describe';
      readonly name: string;
      readonly json: boolean;
      readonly context?: ToolContext;
    }
  | {
      readonly command: 'call';
      readonly name: string;
      readonly json: boolean;
      readonly context?: ToolContext;
      readonly args: CliArgumentsSource;
      /** `--yes` / `-y`: accept every confirmation the tool asks for without prompting. */
      readonly yes?: boolean;
    };

const COMMANDS = ['list', 'describe', 'call', 'help'] as const;

const OPTIONS = {
  args: { type: 'string' },
  'args-file': { type: 'string' },
  context: { type: 'string' },
  json: { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * Parses JSON given on the command line, naming the option when it is malformed.
 *
 * @example
 * parseJsonOption('{"id":"o1"}', '--args'); // { id: 'o1' }
 * parseJsonOption('{id:1}', '--args');       // throws CliUsageError: --args is not valid JSON: …
 */
export function parseJsonOption(text: string, option: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliUsageError(`${option} is not valid JSON: ${(error as Error).message}`);
  }
}

function parseContext(text: string | undefined): ToolContext | undefined {
  if (text === undefined) return undefined;
  const context = parseJsonOption(text, '--context');
  if (typeof context !== 'object' || context === null || Array.isArray(context)) {
    throw new CliUsageError(
      '--context must be a JSON object, e.g. --context \'{"tenantId":"t1"}\'.',
    );
  }
  return context as ToolContext;
}

function parse(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    // util.parseArgs explains unknown options and missing values well; keep its words.
    throw new CliUsageError((error as Error).message);
  }
}

/**
 * Parses a command line (`list`, `describe <name>`, `call <name> …`) with Node's `util.parseArgs`
 * and checks it: an unknown command, a missing or extra name, an option the command does not
 * take, or malformed JSON in `--args` / `--context` throw a {@link CliUsageError}.
 *
 * @example
 * parseCliArguments(['call', 'orders_get', '--args', '{"id":"o1"}']);
 * // { command: 'call', name: 'orders_get', json: false, args: { from: 'inline', value: { id: 'o1' } } }
 */
export function parseCliArguments(argv: readonly string[]): CliRequest {
  const { values, positionals } = parse(argv);
  const [command, name, ...extra] = positionals;
  if (values.help || command === 'help') return { command: 'help' };
  if (command === undefined)
    throw new CliUsageError('A command is required: list, describe or call.');
  if (!(COMMANDS as readonly string[]).includes(command)) {
    const similar = similarNames(command, COMMANDS);
    throw new CliUsageError(
      `Unknown command "${command}".` +
        (similar.length > 0 ? ` Did you mean "${similar[0]}"?` : ' Use list, describe or call.'),
    );
  }
  if (command !== 'call') {
    for (const option of ['args', 'args-file', 'yes'] as const) {
      if (values[option] !== undefined) {
        throw new CliUsageError(`--${option} is only valid with call.`);
      }
    }
  }
  const json = values.json ?? false;
  const context = parseContext(values.context);
  if (command === 'list') {
    if (name !== undefined) throw new CliUsageError(`list takes no tool name; got "${name}".`);
    return { command, json, ...(context && { context }) };
  }
  if (name === undefined)
    throw new CliUsageError(`${command} needs a tool name: ${command} <name>.`);
  if (extra.length > 0) {
    throw new CliUsageError(
      `Unexpected argument "${extra[0]}". Pass the tool's arguments as JSON with --args.`,
    );
  }
  if (command === 'describe') return { command, name, json, ...(context && { context }) };
  return {
    command: 'call',
    name,
    json,
    ...(context && { context }),
    args: argumentsSource(values),
    ...(values.yes && { yes: true }),
  };
}

function argumentsSource(values: { args?: string; 'args-file'?: string }): CliArgumentsSource {
  if (values.args !== undefined && values['args-file'] !== undefined) {
    throw new CliUsageError('Give the arguments once: --args or --args-file, not both.');
  }
  if (values.args !== undefined) {
    return { from: 'inline', value: parseJsonOption(values.args, '--args') };
  }
  const file = values['args-file'];
  if (file === undefined) return { from: 'stdin', explicit: false };
  return file === '-' ? { from: 'stdin', explicit: true } : { from: 'file', path: file };
}
