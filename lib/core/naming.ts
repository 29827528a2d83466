import { CORE_MESSAGES } from './core.messages.js';
import { ToolsConfigurationError } from './errors.js';

/** Every tool name must match this: deliverable to every model provider. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** `camelCase`, `PascalCase`, `kebab-case` and spaced words to `snake_case`. */
export function snakeCase(value: string): string {
  return value
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[^a-zA-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}

/**
 * The name of a tool that does not set one: `snake_case(serviceName) + '_' + snake_case(action)`.
 */
export function deriveToolName(serviceName: string, action: string): string {
  const service = snakeCase(serviceName);
  const verb = snakeCase(action);
  if (!service || !verb) {
    throw new ToolsConfigurationError(
      CORE_MESSAGES.underivableName(
        serviceName,
        action,
        service ? 'the action' : 'the service name',
      ),
    );
  }
  return `${service}_${verb}`;
}

/**
 * Refuses a name that does not match {@link TOOL_NAME_PATTERN}, naming where it came from, with a
 * `ToolsConfigurationError`.
 */
export function assertToolName(name: string, origin: string): void {
  if (TOOL_NAME_PATTERN.test(name)) return;
  const why =
    name.length > 64
      ? `is ${name.length} characters (max 64)`
      : name.length === 0
        ? 'is empty'
        : 'must match ^[a-zA-Z0-9_-]{1,64}$';
  throw new ToolsConfigurationError(CORE_MESSAGES.toolName(name, origin, why));
}

/** A name and where it was declared, for messages. */
export interface NamedOrigin {
  readonly name: string;
  readonly origin: string;
}

/**
 * Refuses two entries with the same name, naming both origins, with a `ToolsConfigurationError`.
 */
export function assertUniqueNames(entries: Iterable<NamedOrigin>, label = 'tool name'): void {
  const seen = new Map<string, string>();
  for (const { name, origin } of entries) {
    const first = seen.get(name);
    if (first !== undefined) {
      throw new ToolsConfigurationError(CORE_MESSAGES.duplicateName(name, first, origin, label));
    }
    seen.set(name, origin);
  }
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
    }
    previous = current;
  }
  return previous[b.length];
}

/** Up to `limit` names close to `name` (by edit distance, or sharing a part), closest first. */
export function similarNames(name: string, candidates: readonly string[], limit = 3): string[] {
  const wanted = name.toLowerCase();
  const threshold = Math.max(2, Math.floor(wanted.length / 3));
  return candidates
    .map((candidate) => {
      const lower = candidate.toLowerCase();
      const related = wanted.length >= 3 && (lower.includes(wanted) || wanted.includes(lower));
      // The length difference bounds the distance from below: a name far longer than any tool
      // name (a caller may send megabytes) is never compared letter by letter.
      const bound = Math.abs(wanted.length - lower.length);
      const distance = bound > threshold ? bound : editDistance(wanted, lower);
      return { candidate, score: related ? Math.min(distance, threshold) : distance };
    })
    .filter(({ score }) => score <= threshold)
    .sort((x, y) => x.score - y.score || x.candidate.localeCompare(y.candidate))
    .slice(0, limit)
    .map(({ candidate }) => candidate);
}

/** `Unknown tool "x". Did you mean "a", "b"?` — or the list of what exists when nothing is close. */
export function unknownToolMessage(
  name: string,
  candidates: readonly string[],
  noun: 'tool' | 'prompt' = 'tool',
): string {
  const similar = similarNames(name, candidates);
  if (similar.length > 0) {
    return `Unknown ${noun} "${name}". Did you mean ${similar.map((s) => `"${s}"`).join(', ')}?`;
  }
  return candidates.length === 0
    ? `Unknown ${noun} "${name}": no ${noun}s are available.`
    : `Unknown ${noun} "${name}".`;
}
