/**
 * The exit codes of {@link runToolsCli}: `0` success, `1` the tool, read or prompt failed (its
 * envelope is on stdout) or the application could not start, `2` a usage error, an unknown tool,
 * resource URI or prompt, or a question the tool asked with no terminal to answer it on (the
 * message is on stderr).
 */
export const CLI_EXIT_CODES = Object.freeze({ OK: 0, TOOL_FAILED: 1, USAGE: 2 } as const);

/** A command line that cannot be run as written; its message says what to change. */
export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';
}

/** The `--help` text of the command line named `program`. */
export function cliUsage(program: string): string {
  return `Usage: ${program} <command> [options]

Commands:
  list                 List the tools available on the command line
  describe <name>      Show a tool's description and JSON Schemas
  call <name>          Run a tool
  resources            List the resources and resource templates
  read <uri>           Read a resource, or a URI a resource template matches
  prompts              List the prompts
  prompt <name>        Show a prompt's messages

Options:
  --args <json>        The arguments, a JSON object (call, prompt)
  --args-file <path>   Read the arguments from a file, '-' for stdin (call, prompt)
  --context <json>     The call's context, a JSON object
  --json               Machine-readable output
  -y, --yes            Accept every confirmation the tool asks for (call)
  -h, --help           Show this help

Without --args or --args-file, call and prompt read their arguments from stdin when stdin is
not a terminal.
read prints text contents as they are. A binary content is written as raw bytes when it is the
only content and stdout is not a terminal (${program} read <uri> > file); otherwise it shows as
<binary, N bytes, type>. With --json, read prints { contents }, binary ones in base64.
A tool that asks questions prompts on the terminal (stdin and stderr); without one, only the
confirmations --yes accepts can be answered.
Exit codes: 0 success, 1 the tool, read or prompt failed (its error envelope on stdout), 2 usage
error, unknown tool, resource or prompt, or a question with no terminal to answer it on.
`;
}
