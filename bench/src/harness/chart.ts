/**
 * `bench:http`'s results as JSON, and the SVG chart drawn from that JSON: CPU per answer for
 * every target and cell, one panel per scenario, bars grouped by era. Plain strings, no
 * dependency.
 */
import { ALL_SCENARIOS, ERAS, SCENARIO_LABEL } from './cells.js';
import type { Era, Scenario } from './mcp.js';

/** One cell's medians over the rounds, and each round's own figures. */
export interface ResultCell {
  readonly target: string;
  readonly scenario: Scenario;
  readonly era: Era;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly cpuUs: number;
  readonly peakRssBytes: number;
  readonly bodyBytes: number;
  readonly otherCores: number;
  /** CPU per answer over `@rekog/mcp-nest`'s in the same cell, when it ran. */
  readonly cpuOverRekog: number | null;
  /** CPU per answer over the floor of the target's adapter in the same cell, when it ran. */
  readonly cpuOverFloor: number | null;
  readonly rounds: ReadonlyArray<{
    readonly round: number;
    readonly rps: number;
    readonly cpuUs: number;
  }>;
}

/** What `bench:http` writes at the end of a run (`bench/results/http.json`). */
export interface HttpResults {
  readonly date: string;
  readonly machine: string;
  readonly settings: Readonly<Record<string, number>>;
  readonly targets: ReadonlyArray<{
    readonly id: string;
    readonly label: string;
    /** The eras the target does not speak: its cells there are not applicable, not missing. */
    readonly notApplicable?: readonly Era[];
  }>;
  readonly cells: readonly ResultCell[];
}

const COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1'];
const FONT = 'font-family="system-ui, sans-serif"';

const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A round step (1, 2 or 5 × 10^n) that splits `max` into about four. */
function tickStep(max: number): number {
  const rough = max / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= rough) ?? rough;
}

/**
 * The SVG of `results`: per scenario measured, a panel with its own scale, one group of bars per
 * era, one bar (CPU µs per answer, its value above it) per target that measured the cell.
 */
export function renderChart(results: HttpResults): string {
  const width = 960;
  const left = 64;
  const panelHeight = 210;
  const plotHeight = 150;
  const legendRow = 18;
  const color = new Map(results.targets.map((t, i) => [t.id, COLORS[i % COLORS.length]]));
  const legendTop = 44;
  const panelsTop = legendTop + legendRow * results.targets.length + 12;
  const scenarios = ALL_SCENARIOS.filter((s) => results.cells.some((c) => c.scenario === s));
  const height = panelsTop + panelHeight * scenarios.length + 8;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT} font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${left}" y="20" font-size="15" font-weight="bold">bench:http — server CPU per answer (µs, lower is better)</text>`,
    `<text x="${left}" y="36" fill="#555555">${escape(
      `${results.date.slice(0, 10)}, median of ${results.settings.rounds} round(s) of ` +
        `${results.settings.durationS} s per cell, ${results.settings.connections} connections`,
    )}</text>`,
  ];
  results.targets.forEach((target, i) => {
    const y = legendTop + i * legendRow;
    parts.push(
      `<rect x="${left}" y="${y}" width="12" height="12" fill="${color.get(target.id)}"/>`,
      `<text x="${left + 18}" y="${y + 10}">${escape(target.label)}</text>`,
    );
  });
  scenarios.forEach((scenario, index) => {
    const top = panelsTop + index * panelHeight;
    const base = top + 24 + plotHeight;
    const cells = results.cells.filter((cell) => cell.scenario === scenario);
    const step = tickStep(Math.max(...cells.map((cell) => cell.cpuUs)));
    const max = step * Math.ceil(Math.max(...cells.map((cell) => cell.cpuUs)) / step);
    const y = (value: number) => base - (value / max) * plotHeight;
    parts.push(
      `<text x="${left}" y="${top + 14}" font-size="13" font-weight="bold">${escape(SCENARIO_LABEL[scenario])}</text>`,
    );
    for (let tick = 0; tick <= max + step / 2; tick += step) {
      parts.push(
        `<line x1="${left}" x2="${width - 16}" y1="${y(tick)}" y2="${y(tick)}" stroke="#e0e0e0"/>`,
        `<text x="${left - 6}" y="${y(tick) + 4}" text-anchor="end" fill="#555555">${tick}</text>`,
      );
    }
    const groupWidth = (width - 16 - left) / ERAS.length;
    ERAS.forEach((era, e) => {
      // A target that does not speak the era keeps its place in the group, marked n/a.
      const group = results.targets.flatMap((target): Array<ResultCell | { target: string }> => {
        const measured = cells.filter((cell) => cell.era === era && cell.target === target.id);
        return measured.length === 0 && target.notApplicable?.includes(era)
          ? [{ target: target.id }]
          : measured;
      });
      const groupLeft = left + e * groupWidth;
      const barWidth = Math.min(56, (groupWidth - 40) / Math.max(group.length, 1));
      const barsLeft = groupLeft + (groupWidth - barWidth * group.length) / 2;
      group.forEach((cell, b) => {
        const x = barsLeft + b * barWidth;
        if (!('cpuUs' in cell)) {
          parts.push(
            `<text x="${x + barWidth / 2}" y="${base - 3}" text-anchor="middle" font-size="10" fill="${color.get(cell.target)}"><title>${escape(
              `${cell.target} ${SCENARIO_LABEL[scenario]} ${era}: not applicable (does not speak this era)`,
            )}</title>n/a</text>`,
          );
          return;
        }
        parts.push(
          `<rect x="${x + 2}" y="${y(cell.cpuUs)}" width="${barWidth - 4}" height="${base - y(cell.cpuUs)}" fill="${color.get(cell.target)}"><title>${escape(
            `${cell.target} ${SCENARIO_LABEL[scenario]} ${era}: ${Math.round(cell.cpuUs)} µs`,
          )}</title></rect>`,
          `<text x="${x + barWidth / 2}" y="${y(cell.cpuUs) - 3}" text-anchor="middle" font-size="10">${Math.round(cell.cpuUs)}</text>`,
        );
      });
      parts.push(
        `<text x="${groupLeft + groupWidth / 2}" y="${base + 16}" text-anchor="middle" fill="#333333">${
          era === '2026' ? '2026-07-28 envelope' : '2025 stateless'
        }${group.every((cell) => !('cpuUs' in cell)) ? ' (not measured)' : ''}</text>`,
      );
    });
    parts.push(
      `<line x1="${left}" x2="${width - 16}" y1="${base}" y2="${base}" stroke="#999999"/>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
