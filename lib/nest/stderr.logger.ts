import { ConsoleLogger, type LogLevel } from '@nestjs/common';

/**
 * A Nest logger that writes every level to stderr, so stdout stays clean for a protocol (MCP
 * over stdio) or for machine-readable output (the command line).
 *
 * @example
 * const app = await NestFactory.createApplicationContext(AppModule, { logger: new StderrLogger() });
 */
export class StderrLogger extends ConsoleLogger {
  protected override printMessages(
    messages: unknown[],
    context?: string,
    logLevel?: LogLevel,
    _writeStreamType?: 'stdout' | 'stderr',
    errorStack?: unknown,
    params?: Record<string, any>,
  ): void {
    super.printMessages(messages, context, logLevel, 'stderr', errorStack, params);
  }
}
