import type { InvokeOptions } from '../core/invoker.js';
import type { ToolProgress } from '../core/types.js';

/** JSON text; a value JSON cannot hold (a bigint, a cycle) is still printed, as text. */
export function jsonText(value: unknown, pretty: boolean): string {
  try {
    return JSON.stringify(value, null, pretty ? 2 : undefined) ?? 'null';
  } catch {
    return JSON.stringify(String(value));
  }
}

/** The first line of a text. */
export function firstLine(text: string): string {
  return text.split('\n', 1)[0];
}

/** A text ending with exactly the newline it had, or one added. */
export function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** One line per row: the keys padded to the longest, two spaces, the first line of the text. */
export function alignedRows(rows: ReadonlyArray<readonly [key: string, text: string]>): string {
  const width = Math.max(...rows.map(([key]) => key.length));
  return rows.map(([key, text]) => `${key.padEnd(width)}  ${firstLine(text)}\n`).join('');
}

function progressLine({ progress, total, message }: ToolProgress): string {
  const amount =
    progress === undefined ? '' : total === undefined ? `${progress}` : `${progress}/${total}`;
  return `progress${amount && ` ${amount}`}${message ? ` ${message}` : ''}\n`;
}

/**
 * The `onLog` and `onProgress` of a command-line call: the handler's logs and progress, one
 * line each, on stderr.
 */
export function callReporters(stderr: {
  write(text: string): unknown;
}): Required<Pick<InvokeOptions, 'onLog' | 'onProgress'>> {
  return {
    onLog: (level, message, data) =>
      stderr.write(
        `[${level}] ${message}${data === undefined ? '' : ` ${jsonText(data, false)}`}\n`,
      ),
    onProgress: (progress) => stderr.write(progressLine(progress)),
  };
}
