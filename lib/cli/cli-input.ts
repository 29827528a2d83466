import { readFile } from 'node:fs/promises';
import { parseJsonOption, type CliArgumentsSource } from './cli-arguments.js';
import { CliUsageError } from './cli-usage.js';

/** The standard input as the command line reads it. */
export type CliStdin = NodeJS.ReadableStream & { isTTY?: boolean };

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The arguments of a `call` or `prompt`: the `--args` JSON, the JSON of `--args-file`, or the
 * JSON piped on stdin. Without either option, a terminal on stdin (nothing piped) or empty input
 * means no arguments (`{}`). An unreadable file or malformed JSON throws a {@link CliUsageError}.
 */
export async function readCallArguments(
  source: CliArgumentsSource,
  stdin: CliStdin,
): Promise<unknown> {
  if (source.from === 'inline') return source.value;
  if (source.from === 'file') {
    let text: string;
    try {
      text = await readFile(source.path, 'utf8');
    } catch (error) {
      throw new CliUsageError(
        `Cannot read --args-file ${source.path}: ${(error as Error).message}`,
      );
    }
    return parseJsonOption(text, `--args-file ${source.path}`);
  }
  if (!source.explicit && stdin.isTTY) return {};
  const text = await readAll(stdin);
  return text.trim() === '' ? {} : parseJsonOption(text, 'stdin');
}
