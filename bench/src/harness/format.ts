/** Plain-text tables and number formats for the benchmark reports. */
import { PINNING } from './server-process.js';

/** Environment number with a fallback; refuses anything that is not a finite number ≥ min. */
export function envNumber(name: string, fallback: number, min = 0): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) {
    throw new Error(`${name} must be a number ≥ ${min}, got "${raw}".`);
  }
  return value;
}

export const int = (value: number) => Math.round(value).toLocaleString('en-US');
export const fixed = (value: number, digits = 1) =>
  Number.isFinite(value) ? value.toFixed(digits) : '—';
export const ms = (value: number) => `${fixed(value, value < 10 ? 2 : 1)} ms`;
export const mib = (bytes: number) => `${fixed(bytes / (1024 * 1024), 1)} MiB`;
export const kib = (bytes: number) =>
  bytes >= 1024 * 1024 ? mib(bytes) : `${fixed(bytes / 1024, 1)} KiB`;
export const ratio = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : '—');

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** A table with a header row; columns after the first are right-aligned. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]),
      )
      .join('  ')
      .trimEnd();
  return [
    line(header),
    widths.map((width) => '-'.repeat(width)).join('  '),
    ...rows.map(line),
  ].join('\n');
}

/** Header lines about the machine, so figures from different runs can be compared. */
export async function machineLine(): Promise<string> {
  const os = await import('node:os');
  const load = os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  return `node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), load average ${load}; ${PINNING}`;
}
