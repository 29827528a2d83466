import type { LoggerService, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { ToolAsk } from '../../core/asking.js';
import type { ToolContext } from '../../core/types.js';
import { parseCliArguments, type CliRequest } from '../../cli/cli-arguments.js';
import { runCliCommand, type CliCommand, type CliCommandIO } from '../../cli/cli-commands.js';
import { readCallArguments, type CliStdin } from '../../cli/cli-input.js';
import { CLI_EXIT_CODES, CliUsageError, cliUsage } from '../../cli/cli-usage.js';
import { StderrLogger } from '../stderr.logger.js';
import { ToolInvoker } from '../tool-invoker.service.js';

/** The application module `runToolsCli` boots, as `NestFactory` takes it. */
export type ToolsCliModule = Parameters<typeof NestFactory.createApplicationContext>[0];

/**
 * Options of {@link runToolsCli}.
 *
 * @example
 * const controller = new AbortController();
 * process.once('SIGINT', () => controller.abort());
 * await runToolsCli(AppModule, process.argv.slice(2), { name: 'tools', signal: controller.signal });
 */
export interface ToolsCliOptions {
  /** The program name shown in `--help`. @default 'tools' */
  name?: string;
  /** The context of every call (there is no HTTP request to resolve one from); `--context` is merged over it. */
  context?: ToolContext;
  /**
   * Nest's logger. Everything it prints goes to stderr, so stdout carries only the output.
   * @default new StderrLogger({ logLevels: ['fatal', 'error', 'warn'] })
   */
  logger?: LoggerService | LogLevel[] | false;
  /** Cancels a running call, read or get, e.g. on SIGINT; an open prompt closes. */
  signal?: AbortSignal;
  /**
   * Answers the tools' questions instead of the terminal prompts (`--yes` still accepts
   * confirmations first).
   *
   * @example
   * await runToolsCli(AppModule, argv, {
   *   ask: async (question) => ({ action: question.kind === 'confirm' ? 'accept' : 'decline' }),
   * });
   */
  ask?: ToolAsk;
  /** The arguments piped in; the keys typed for a tool's questions when it is a terminal. @default process.stdin */
  stdin?: CliStdin;
  /** @default process.stdout */
  stdout?: CliCommandIO['stdout'];
  /** @default process.stderr */
  stderr?: CliCommandIO['stderr'];
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The command line of an application's tools, resources and prompts: `list`, `describe <name>`,
 * `call <name> [--args '<json>' | --args-file <path> | args on stdin]`, `resources`,
 * `read <uri>`, `prompts` and `prompt <name>` (its arguments as for `call`), each with
 * `[--context '<json>']`, `--json` for machine-readable output, and `--help`. Only what is
 * exposed on `CLI` exists there; calls, reads and gets run through the canonical runner with
 * `transport: 'CLI'` and `source: 'cli'`.
 *
 * It checks the command line first, then boots a Nest application context (no HTTP server;
 * Nest logs to stderr), runs the command, closes the application and resolves to the exit code
 * — `0` success, `1` the tool, read or prompt failed (its JSON envelope on stdout), `2` usage
 * error, unknown tool, resource or prompt (the message, with the closest names, on stderr). It
 * never calls `process.exit`: the caller's bin sets `process.exitCode`.
 *
 * A tool's `confirm` and `elicit` prompt on the terminal (stdin and stderr), `--yes` accepting
 * every confirmation without a prompt. Off a terminal, a question `--yes` does not answer ends
 * the command with exit `2` and a message on stderr saying what to do.
 *
 * @example
 * // tools.ts, the command line's entry point
 * import { runToolsCli } from 'toolwright';
 * import { AppModule } from './app.module.js';
 *
 * process.exitCode = await runToolsCli(AppModule, process.argv.slice(2), {
 *   name: 'tools',
 *   context: { tenantId: process.env.TENANT_ID },
 * });
 * // $ tools call billing_get_invoice --args '{"id":"inv_1"}' --json
 * // $ tools call tickets_close --args '{"id":"T-1"}' --yes
 * // $ tools read kb://articles/reset-password
 * // $ tools prompt triage_ticket --args '{"id":"T-1"}'
 */
export async function runToolsCli(
  module: ToolsCliModule,
  argv: readonly string[] = process.argv.slice(2),
  options: ToolsCliOptions = {},
): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const stdin = options.stdin ?? process.stdin;
  const program = options.name ?? 'tools';

  let request: CliRequest;
  let command: CliCommand;
  try {
    request = parseCliArguments(argv);
    if (request.command === 'help') {
      stdout.write(cliUsage(program));
      return CLI_EXIT_CODES.OK;
    }
    if (request.command === 'call' || request.command === 'prompt') {
      const { args, ...rest } = request;
      command = { ...rest, input: await readCallArguments(args, stdin) };
    } else command = request;
  } catch (error) {
    if (!(error instanceof CliUsageError)) throw error;
    stderr.write(`${error.message}\nRun "${program} --help" for usage.\n`);
    return CLI_EXIT_CODES.USAGE;
  }

  let app: Awaited<ReturnType<typeof NestFactory.createApplicationContext>>;
  try {
    app = await NestFactory.createApplicationContext(module, {
      logger: options.logger ?? new StderrLogger({ logLevels: ['fatal', 'error', 'warn'] }),
      abortOnError: false, // Nest would otherwise call process.exit on a bootstrap failure
    });
  } catch (error) {
    stderr.write(`The application failed to start: ${message(error)}\n`);
    return CLI_EXIT_CODES.TOOL_FAILED;
  }
  try {
    const invoker = app.get(ToolInvoker, { strict: false });
    return await runCliCommand(invoker, command, {
      stdin,
      stdout,
      stderr,
      ask: options.ask,
      context: options.context,
      signal: options.signal,
      program,
    });
  } finally {
    await app.close();
  }
}
