import type { InvokeOptions } from '../core/invoker.js';
import type { ToolProgress } from '../core/types.js';

/**
 * JSON text; a value JSON cannot hold (a bigint, a cycle) is still printed, as text.
 *
 * @example
 * jsonText({ id: 'o1' }, false); // '{"id":"o1"}'
 */
export function jsonText(value: unknown, pretty: boolean): string {
  try {
    return JSON.stringify(value, null, pretty ? 2 : undefined) ?? 'null';
  } catch {
    return JSON.stringify(String(value));
  }
}

/**
 * The first line of a text.
 *
 * @example
 * firstLine('Fetch one item\nThe SKU is case-sensitive.'); // 'Fetch one item'
 */
export function firstLine(text: string): string {
  return text.split('\n', 1)[0];
}

/**
 * A text ending with exactly the newline it had, or one added.
 *
 * @example
 * withNewline('done'); // 'done\n'
 */
export function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

/**
 * One line per row: the keys padded to the longest, two spaces, the first line of the text.
 *
 * @example
 * alignedRows([['kb://handbook', 'Support handbook'], ['kb://articles/{slug}', 'Article']]);
 * // 'kb://handbook         Support handbook\nkb://articles/{slug}  Article\n'
 */
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
 *
 * @example
 * await invoker.invoke('orders_get', { id: 'o1' }, { transport: 'CLI', ...callReporters(process.stderr) });
 * // stderr: [info] looking up {"id":"o1"}
 * //         progress 1/2 halfway
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
