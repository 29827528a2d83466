import { ToolError } from '../core/errors.js';
import type { InvokeOptions, ToolInvoker } from '../core/invoker.js';
import { similarNames, unknownToolMessage } from '../core/naming.js';
import type {
  OperationDescriptor,
  PromptGet,
  PromptMessage,
  ResourceContents,
} from '../core/operations.js';
import { toErrorEnvelope, type ToolFailure } from '../core/result.js';
import type { ToolContext } from '../core/types.js';
import type { CliCommand, CliCommandIO } from './cli-commands.js';
import { alignedRows, callReporters, jsonText, withNewline } from './cli-output.js';
import { CLI_EXIT_CODES } from './cli-usage.js';

/** A `resources`, `read`, `prompts` or `prompt` command, its arguments read. */
export type CliOperationCommand = Extract<
  CliCommand,
  { command: 'resources' | 'read' | 'prompts' | 'prompt' }
>;

/** Whether a command is about resources or prompts (run by {@link runOperationCommand}). */
export function isOperationCommand(command: CliCommand): command is CliOperationCommand {
  return ['resources', 'read', 'prompts', 'prompt'].includes(command.command);
}

/** At most this many resources are listed in the message about an unknown URI. */
const LISTED_RESOURCES = 10;

/** What a resource is listed by: its URI, or its template's. */
function resourceKey(descriptor: OperationDescriptor): string {
  return (descriptor.kind === 'resource' && (descriptor.uri ?? descriptor.uriTemplate)) || '';
}

function binaryLine(blob: string, mimeType: unknown): string {
  const type = typeof mimeType === 'string' ? `, ${mimeType}` : '';
  return `<binary, ${Buffer.byteLength(blob, 'base64')} bytes${type}>\n`;
}

/**
 * Writes a read's contents: text as it is (a newline added when missing); the one binary
 * content as raw bytes when stdout is not a terminal, else a `<binary, …>` line. Several
 * contents each get a `==> uri <==` header, blank lines between them, as `head` shows files.
 */
function writeContents(contents: readonly ResourceContents[], stdout: CliCommandIO['stdout']) {
  const [only] = contents;
  if (contents.length === 1 && 'blob' in only && stdout.isTTY !== true) {
    stdout.write(Buffer.from(only.blob, 'base64'));
    return;
  }
  contents.forEach((content, index) => {
    if (contents.length > 1) stdout.write(`${index > 0 ? '\n' : ''}==> ${content.uri} <==\n`);
    stdout.write(
      'text' in content ? withNewline(content.text) : binaryLine(content.blob, content.mimeType),
    );
  });
}

/** A resource embedded in a prompt message, as far as the command line shows it. */
interface EmbeddedResource {
  readonly uri?: unknown;
  readonly mimeType?: unknown;
  readonly text?: unknown;
  readonly blob?: unknown;
}

/** One content of a prompt message, as text ending with a newline. */
function contentText(content: PromptMessage['content']): string {
  switch (content.type) {
    case 'text':
      return withNewline(String(content.text));
    case 'image':
    case 'audio': {
      const size = Buffer.byteLength(String(content.data), 'base64');
      return `<${content.type} ${String(content.mimeType)}, ${size} bytes>\n`;
    }
    case 'resource': {
      const { uri, mimeType, text, blob } = (content.resource ?? {}) as EmbeddedResource;
      const body =
        typeof text === 'string'
          ? withNewline(text)
          : typeof blob === 'string'
            ? binaryLine(blob, mimeType)
            : '';
      return `<resource ${String(uri)}>\n${body}`;
    }
    case 'resource_link':
      return `<resource_link ${String(content.uri)}>\n`;
    default: {
      const { type, ...rest } = content;
      return `<${type}> ${jsonText(rest, false)}\n`;
    }
  }
}

/** A prompt's description, then each message after its role, blank lines between them. */
function promptText({ description, messages }: PromptGet): string {
  return [
    ...(description ? [withNewline(description)] : []),
    ...messages.map(({ role, content }) => `[${role}] ${contentText(content)}`),
  ].join('\n');
}

function failed(failure: ToolFailure, json: boolean, io: CliCommandIO): number {
  io.stdout.write(`${jsonText(toErrorEnvelope(failure), !json)}\n`);
  return CLI_EXIT_CODES.TOOL_FAILED;
}

/**
 * The result, or `undefined` when the read or get rejected because nothing on `CLI` answers to
 * its URI or name. A resource or prompt that exists always resolves, its own `NOT_FOUND`
 * included, so only the invoker's rejection for an unknown URI or name is caught here.
 */
function unlessUnknown<T>(pending: Promise<T>): Promise<T | undefined> {
  return pending.catch((error: unknown) => {
    if (ToolError.is(error) && error.code === 'NOT_FOUND') return undefined;
    throw error;
  });
}

async function unknownResource(
  uri: string,
  invoker: ToolInvoker,
  context: ToolContext | undefined,
  program: string,
): Promise<string> {
  const keys = (await invoker.visibleOperations('CLI', 'resource', { context })).map(resourceKey);
  const head = `No resource at "${uri}"`;
  if (keys.length === 0) return `${head}: no resources are available.\n`;
  const similar = similarNames(uri, keys);
  if (similar.length > 0) {
    return `${head}. Did you mean ${similar.map((key) => `"${key}"`).join(', ')}?\n`;
  }
  if (keys.length <= LISTED_RESOURCES) {
    return `${head}. The resources are:\n${keys.map((key) => `  ${key}\n`).join('')}`;
  }
  return `${head}. List the ${keys.length} resources with "${program} resources".\n`;
}

async function listOperations(
  invoker: ToolInvoker,
  kind: 'resource' | 'prompt',
  json: boolean,
  context: ToolContext | undefined,
  { stdout, stderr }: CliCommandIO,
): Promise<number> {
  const found = await invoker.visibleOperations('CLI', kind, { context });
  if (json) stdout.write(`${jsonText(found, false)}\n`);
  else if (found.length === 0) {
    stderr.write(
      `No ${kind}s are exposed on the command line: add 'CLI' to a ${kind}'s transports.\n`,
    );
  } else {
    const rows = found.map((descriptor): [string, string] =>
      kind === 'resource'
        ? [resourceKey(descriptor), descriptor.title ?? descriptor.description]
        : [descriptor.name, descriptor.description],
    );
    stdout.write(alignedRows(rows));
  }
  return CLI_EXIT_CODES.OK;
}

/**
 * Runs `resources`, `read <uri>`, `prompts` or `prompt <name>` against the resources and prompts
 * exposed on `CLI`, and returns the exit code. The lists show what the caller may see (scopes,
 * guards' `canList`); reads and gets run through the canonical runner (`transport: 'CLI'`,
 * `source: 'cli'`), the handler's logs and progress on stderr, a failure's JSON envelope on
 * stdout (exit 1). An unknown URI or prompt is exit 2 with a message on stderr naming what the
 * caller may use instead.
 *
 * Text output — `resources`: `uri-or-template  title-or-description`; `prompts`:
 * `name  description`; `read`: the text contents, the one binary content as raw bytes off a
 * terminal, else `<binary, N bytes, type>`; `prompt`: the description, then `[role] text`,
 * `[role] <image type, N bytes>`, `[role] <resource uri>` and its text. `--json` prints the
 * descriptors, `{ contents }` or `{ description?, messages }`.
 */
export async function runOperationCommand(
  invoker: ToolInvoker,
  command: CliOperationCommand,
  io: CliCommandIO,
): Promise<number> {
  const { stdout, stderr } = io;
  const context = command.context ? { ...io.context, ...command.context } : io.context;
  if (command.command === 'resources' || command.command === 'prompts') {
    const kind = command.command === 'resources' ? 'resource' : 'prompt';
    return listOperations(invoker, kind, command.json, context, io);
  }

  const options: InvokeOptions = {
    transport: 'CLI',
    source: 'cli',
    context,
    signal: io.signal,
    ...callReporters(stderr),
  };
  if (command.command === 'read') {
    const result = await unlessUnknown(invoker.readResource(command.uri, options));
    if (!result) {
      stderr.write(await unknownResource(command.uri, invoker, context, io.program ?? 'tools'));
      return CLI_EXIT_CODES.USAGE;
    }
    if (!result.ok) return failed(result.error, command.json, io);
    if (command.json) stdout.write(`${jsonText(result.data, false)}\n`);
    else writeContents(result.data.contents, stdout);
    return CLI_EXIT_CODES.OK;
  }

  const result = await unlessUnknown(invoker.getPrompt(command.name, command.input, options));
  if (!result) {
    const visible = await invoker.visibleOperations('CLI', 'prompt', { context });
    const names = visible.map(({ name }) => name).sort();
    stderr.write(`${unknownToolMessage(command.name, names, 'prompt')}\n`);
    return CLI_EXIT_CODES.USAGE;
  }
  if (!result.ok) return failed(result.error, command.json, io);
  stdout.write(command.json ? `${jsonText(result.data, false)}\n` : promptText(result.data));
  return CLI_EXIT_CODES.OK;
}
