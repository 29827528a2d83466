import { parseArgs } from 'node:util';
import { similarNames } from '../core/naming.js';
import type { ToolContext } from '../core/types.js';
import { CliUsageError } from './cli-usage.js';

/** Where `call` and `prompt` take their arguments from. */
export type CliArgumentsSource =
  | { readonly from: 'inline'; readonly value: unknown }
  | { readonly from: 'file'; readonly path: string }
  | { readonly from: 'stdin'; readonly explicit: boolean };

/** A command line, parsed and checked. */
export type CliRequest =
  | { readonly command: 'help' }
  | { readonly command: 'list'; readonly json: boolean; readonly context?: ToolContext }
  | { readonly command: 'resources'; readonly json: boolean; readonly context?: ToolContext }
  | { readonly command: 'prompts'; readonly json: boolean; readonly context?: ToolContext }
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
    }
  | {
      readonly command: 'read';
      readonly uri: string;
      readonly json: boolean;
      readonly context?: ToolContext;
    }
  | {
      readonly command: 'prompt';
      readonly name: string;
      readonly json: boolean;
      readonly context?: ToolContext;
      readonly args: CliArgumentsSource;
    };

const COMMANDS = [
  'list',
  'describe',
  'call',
  'resources',
  'read',
  'prompts',
  'prompt',
  'help',
] as const;

/** The commands that take arguments (`--args`, `--args-file`, stdin). */
const WITH_ARGUMENTS: readonly string[] = ['call', 'prompt'];

const OPTIONS = {
  args: { type: 'string' },
  'args-file': { type: 'string' },
  context: { type: 'string' },
  json: { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Parses JSON given on the command line, naming the option when it is malformed. */
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
 * What the one positional argument of a command is, and what to say about an extra one.
 */
const TARGETS: Readonly<Record<string, { readonly needs: string; readonly extra: string }>> = {
  describe: {
    needs: 'a tool name: describe <name>',
    extra: "Pass the tool's arguments as JSON with --args.",
  },
  call: {
    needs: 'a tool name: call <name>',
    extra: "Pass the tool's arguments as JSON with --args.",
  },
  read: { needs: 'a resource URI: read <uri>', extra: 'read takes one URI.' },
  prompt: {
    needs: 'a prompt name: prompt <name>',
    extra: "Pass the prompt's arguments as JSON with --args.",
  },
};

function onlyWith(command: string, option: string): string {
  const message = `--${option} is only valid with call and prompt`;
  return command === 'read'
    ? `${message}: read takes a template's variables in the URI.`
    : `${message}.`;
}

/**
 * Parses a command line (`list`, `describe <name>`, `call <name> …`, `resources`, `read <uri>`,
 * `prompts`, `prompt <name> …`) with Node's `util.parseArgs` and checks it: an unknown command,
 * a missing or extra name or URI, an option the command does not take, or malformed JSON in
 * `--args` / `--context` throw a {@link CliUsageError}.
 */
export function parseCliArguments(argv: readonly string[]): CliRequest {
  const { values, positionals } = parse(argv);
  const [command, name, ...extra] = positionals;
  if (values.help || command === 'help') return { command: 'help' };
  if (command === undefined)
    throw new CliUsageError(
      'A command is required: list, describe, call, resources, read, prompts or prompt.',
    );
  if (!(COMMANDS as readonly string[]).includes(command)) {
    const similar = similarNames(command, COMMANDS);
    throw new CliUsageError(
      `Unknown command "${command}".` +
        (similar.length > 0
          ? ` Did you mean "${similar[0]}"?`
          : ' Use list, describe, call, resources, read, prompts or prompt.'),
    );
  }
  if (command !== 'call' && values.yes !== undefined) {
    throw new CliUsageError('--yes is only valid with call.');
  }
  if (!WITH_ARGUMENTS.includes(command)) {
    for (const option of ['args', 'args-file'] as const) {
      if (values[option] !== undefined) throw new CliUsageError(onlyWith(command, option));
    }
  }
  const json = values.json ?? false;
  const context = parseContext(values.context);
  const common = { json, ...(context && { context }) };
  if (command === 'list' || command === 'resources' || command === 'prompts') {
    if (name !== undefined) {
      const what = command === 'list' ? 'tool name' : 'argument';
      throw new CliUsageError(`${command} takes no ${what}; got "${name}".`);
    }
    return { command, ...common };
  }
  const target = TARGETS[command];
  if (name === undefined) throw new CliUsageError(`${command} needs ${target.needs}.`);
  if (extra.length > 0) {
    throw new CliUsageError(`Unexpected argument "${extra[0]}". ${target.extra}`);
  }
  if (command === 'describe') return { command, name, ...common };
  if (command === 'read') return { command, uri: name, ...common };
  if (command === 'prompt') return { command, name, ...common, args: argumentsSource(values) };
  return {
    command: 'call',
    name,
    ...common,
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
