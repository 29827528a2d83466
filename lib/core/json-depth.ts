/**
 * The deepest nesting of arrays and objects a JSON request may have: an MCP request body, or the
 * arguments of a call that validation could not parse. An MCP message holds a tool's arguments
 * at its third level, which leaves them 126: far more than a tool's schema describes, and far
 * fewer than a recursive validator or `JSON.stringify` needs to run out of stack (thousands).
 */
export const MAX_JSON_DEPTH = 128;

const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** The characters of a string read one by one before the rest is skipped natively. */
const LONG_RUN = 32;

/**
 * Measures how deep JSON text nests arrays and objects as its bytes arrive, without parsing it:
 * brackets and braces are counted outside strings, escapes respected. A body too deep is refused
 * on its bytes, before a parser spends time and memory building it. The text need not be valid
 * JSON (the parser says what else is wrong with it). Reading text takes a fraction of the time
 * parsing it takes, and a long string next to none.
 */
export class JsonDepthGauge {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private exceeded = false;

  constructor(readonly maxDepth = MAX_JSON_DEPTH) {}

  /** Reads the next bytes of the text; `false` once it has nested deeper than `maxDepth`. */
  write(bytes: Uint8Array): boolean {
    if (this.exceeded) return false;
    const { length } = bytes;
    const { maxDepth } = this;
    let { depth, inString, escaped } = this;
    // Where the current run of a string's characters began: a run longer than a few characters
    // is skipped to the next quote or backslash natively, as strings hold most of a large body.
    let run = 0;
    for (let i = 0; i < length; i++) {
      const code = bytes[i];
      if (inString) {
        if (escaped) {
          escaped = false;
          run = i;
        } else if (code === BACKSLASH) escaped = true;
        else if (code === QUOTE) inString = false;
        else if (i - run > LONG_RUN) {
          const quote = bytes.indexOf(QUOTE, i);
          const backslash = bytes.indexOf(BACKSLASH, i);
          const next = Math.min(quote < 0 ? length : quote, backslash < 0 ? length : backslash);
          i = next - 1;
          run = next;
        }
      } else if (code === QUOTE) {
        inString = true;
        run = i;
      } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
        if (++depth > maxDepth) {
          this.exceeded = true;
          return false;
        }
      } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
        // An unbalanced close is the parser's to refuse.
        if (depth > 0) depth--;
      }
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    return true;
  }
}

/** Whether JSON text nests arrays and objects deeper than `maxDepth` (see {@link JsonDepthGauge}). */
export function jsonTextTooDeep(text: Uint8Array | string, maxDepth = MAX_JSON_DEPTH): boolean {
  // Every character counted is ASCII: the UTF-8 bytes of a string read as the string does.
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
  return !new JsonDepthGauge(maxDepth).write(bytes);
}

/**
 * Whether a value nests arrays and plain objects deeper than `maxDepth` (the value itself is
 * level 1). Iterative, and it stops at the first level past the bound, so a value of any depth
 * is measured without running out of stack; a cycle counts as too deep. Other objects (a `Date`,
 * a class instance) count as leaves.
 */
export function valueTooDeep(value: unknown, maxDepth = MAX_JSON_DEPTH): boolean {
  if (!isContainer(value)) return false;
  // The deepest level each container was reached at: one reached again, no deeper, is skipped,
  // so shared and cyclic references cost at most `maxDepth` visits each.
  const deepest = new Map<object, number>();
  const pending: Array<[object, number]> = [[value, 1]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (depth > maxDepth) return true;
    if ((deepest.get(item) ?? 0) >= depth) continue;
    deepest.set(item, depth);
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (isContainer(child)) pending.push([child, depth + 1]);
    }
  }
  return false;
}

function isContainer(value: unknown): value is object {
  if (Array.isArray(value)) return true;
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
