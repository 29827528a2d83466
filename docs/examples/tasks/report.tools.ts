import { Injectable } from '@nestjs/common';
import { Tool, ToolFactory, type ToolCall } from 'toolwright';
import { z } from 'zod';

/** Stands for the slow part of the work: renders one month of a report. */
async function renderMonth(month: number, signal: AbortSignal): Promise<number> {
  signal.throwIfAborted();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return month * 100;
}

@ToolFactory({ serviceName: 'reports' })
@Injectable()
export class ReportTools {
  @Tool({
    action: 'yearlyRevenue',
    method: 'GET',
    description: 'Compute the revenue of a year, month by month (takes a minute).',
    input: z.object({ year: z.number().int() }),
    output: z.object({ year: z.number().int(), total: z.number() }),
    // MCP clients may run it as a task: a handle at once, the result when it is done.
    task: 'optional',
  })
  async yearly({
    input,
    signal,
    reportProgress,
  }: ToolCall<{ year: number }>): Promise<{ year: number; total: number }> {
    let total = 0;
    for (let month = 1; month <= 12; month++) {
      total += await renderMonth(month, signal); // a cancelled task aborts the signal
      reportProgress({ progress: month, total: 12, message: `Month ${month} of 12` });
    }
    return { year: input.year, total };
  }
}
