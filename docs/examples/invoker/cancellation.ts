import { Inject, Injectable } from '@nestjs/common';
import { ToolInvoker } from 'toolwright';

@Injectable()
export class ReportsService {
  constructor(@Inject(ToolInvoker) private readonly tools: ToolInvoker) {}

  /**
   * Gives up after `ms`: the result is REQUEST_ABORTED and the handler's signal fires. Progress
   * and log messages of the handler reach the callbacks.
   */
  exportWithin(ms: number) {
    return this.tools.invoke(
      'reports_export',
      { pages: 5 },
      {
        transport: 'AGENT',
        signal: AbortSignal.timeout(ms),
        onProgress: ({ progress, total }) => console.log(`export ${progress}/${total}`),
        onLog: (level, message, data) => console.log(level, message, data),
      },
    );
  }
}
