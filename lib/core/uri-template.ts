import { ToolsConfigurationError } from './errors.js';

/** One `{…}` expression of a template: its operator, its variable names, whether exploded (`*`). */
interface Expression {
  readonly operator: '' | '+' | '#' | '.' | '/' | '?' | '&';
  readonly names: readonly string[];
  readonly exploded: boolean;
}

const OPERATORS = new Set(['+', '#', '.', '/', '?', '&']);

/** An RFC 6570 variable name (percent-encoded characters aside). */
const VARIABLE = /^[A-Za-z0-9_][A-Za-z0-9_.]*$/;

/** The values a URI gives a template's variables: a string, or a list for an exploded one. */
export type UriVariables = Record<string, string | string[]>;

/**
 * An RFC 6570 URI template of a resource template (`kb://articles/{slug}`), matched against the
 * URIs a client reads. Matching answers as the MCP SDK's `UriTemplate.match` does, which a
 * property test checks: `{var}` takes one segment (no `/` or `,`), `{+var}` and `{#var}` the
 * rest, `{.var}` and `{/var}` a prefixed segment, `{?a,b}` and `{&a}` query parameters in order;
 * values stay as they are in the URI (percent-encoded).
 *
 * @example
 * new UriTemplate('kb://articles/{slug}').match('kb://articles/reset-password'); // { slug: 'reset-password' }
 */
export class UriTemplate {
  /** The variable names, in the order the template names them. */
  readonly variables: readonly string[];
  private readonly pattern: RegExp;
  /** The variable each capture group fills, and whether it is exploded. */
  private readonly captures: ReadonlyArray<{ readonly name: string; readonly exploded: boolean }>;

  constructor(readonly template: string) {
    const expressions: Expression[] = [];
    let source = '^';
    let rest = template;
    while (rest.length > 0) {
      const open = rest.indexOf('{');
      if (open < 0) {
        source += escape(rest);
        break;
      }
      source += escape(rest.slice(0, open));
      const close = rest.indexOf('}', open);
      if (close < 0) {
        throw new ToolsConfigurationError(`URI template "${template}" has an unclosed "{".`);
      }
      const expression = parseExpression(rest.slice(open + 1, close));
      if (expression.names.length === 0 || expression.names.some((name) => !VARIABLE.test(name))) {
        throw new ToolsConfigurationError(
          `URI template "${template}" has the expression {${rest.slice(open + 1, close)}}: ` +
            'name its variables with letters, digits, "_" and ".", one "*" at most after a name.',
        );
      }
      expressions.push(expression);
      source += expressionPattern(expression);
      rest = rest.slice(close + 1);
    }
    this.pattern = new RegExp(`${source}$`);
    this.captures = expressions.flatMap(({ operator, names, exploded }) =>
      operator === '?' || operator === '&'
        ? names.map((name) => ({ name, exploded }))
        : names.length > 0
          ? [{ name: names[0], exploded }]
          : [],
    );
    this.variables = Object.freeze(expressions.flatMap(({ names }) => names));
  }

  /** Whether a string holds a template expression (`{…}`), rather than being a plain URI. */
  static isTemplate(text: string): boolean {
    return /\{[^}\s]+\}/.test(text);
  }

  /** The variables of a URI this template matches, or `null` when it does not match. */
  match(uri: string): UriVariables | null {
    const found = this.pattern.exec(uri);
    if (!found) return null;
    const variables: UriVariables = {};
    this.captures.forEach(({ name, exploded }, index) => {
      const value = found[index + 1];
      variables[name] = exploded && value.includes(',') ? value.split(',') : value;
    });
    return variables;
  }
}

function parseExpression(body: string): Expression {
  const operator = (OPERATORS.has(body[0]) ? body[0] : '') as Expression['operator'];
  return {
    operator,
    exploded: body.includes('*'),
    names: body
      .slice(operator.length)
      .split(',')
      .map((name) => name.replace('*', '').trim())
      .filter((name) => name.length > 0),
  };
}

/** The regular expression of one expression: what a URI may hold in its place. */
function expressionPattern({ operator, names, exploded }: Expression): string {
  const segment = exploded ? '([^/,]+(?:,[^/,]+)*)' : '([^/,]+)';
  switch (operator) {
    case '?':
    case '&':
      return names
        .map((name, index) => `${index === 0 ? `\\${operator}` : '&'}${escape(name)}=([^&]+)`)
        .join('');
    case '':
      return segment;
    case '+':
    case '#':
      return '(.+)';
    case '.':
      return '\\.([^/,]+)';
    case '/':
      return `/${segment}`;
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
