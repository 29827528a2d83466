import {
  hostHeaderValidationResponse,
  originValidationResponse,
  validateHostHeader,
  validateOriginHeader,
} from '@modelcontextprotocol/server';
import { BoundedMap } from '../core/bounded-map.js';
import type { ResolvedMcpEndpointOptions } from './endpoint-options.js';
import type { HttpRequestLike } from './http-framing.js';
import { MCP_MESSAGES } from './mcp.messages.js';

/** How many Host and Origin verdicts an endpoint remembers before it starts over. */
const MAX_HEADER_VERDICTS = 256;

/**
 * How many refused Host values an endpoint logs, a line each, before it logs one last line and
 * stops: a client sending random Hosts grows neither memory nor the log.
 */
export const MAX_LOGGED_HOSTS = 32;

/** The longest Host value a log line quotes. */
const MAX_QUOTED_HOST = 100;

/**
 * The endpoint's Host and Origin checks (DNS-rebinding protection), with the SDK's verdicts and
 * refusals, and one log line for the first refusal of each Host, naming `mcp.allowedHosts`.
 */
export class HeaderChecks {
  private readonly hosts: string[];
  private readonly origins: string[];
  /**
   * The verdicts of the SDK's checks, by header value (a missing Host too): each parses the
   * value as a URL, and the same few values come with every request.
   */
  private readonly hostVerdicts = new BoundedMap<string | undefined, boolean>(MAX_HEADER_VERDICTS);
  private readonly originVerdicts = new BoundedMap<string, boolean>(MAX_HEADER_VERDICTS);
  /** The refused Hosts logged so far (at most `MAX_LOGGED_HOSTS`). */
  private readonly loggedHosts = new Set<string>();
  private readonly allowsHost = (host: string | undefined) =>
    validateHostHeader(host, this.hosts).ok;
  private readonly allowsOrigin = (origin: string) => validateOriginHeader(origin, this.origins).ok;

  constructor(
    private readonly options: Pick<ResolvedMcpEndpointOptions, 'allowedHosts' | 'allowedOrigins'>,
    private readonly warn: (message: string) => void,
  ) {
    const { allowedHosts, allowedOrigins } = options;
    this.hosts = allowedHosts === false ? [] : [...allowedHosts];
    this.origins = allowedOrigins === false ? [] : [...allowedOrigins];
  }

  /** Whether the Node headers pass both checks. */
  allowed(request: HttpRequestLike): boolean {
    const { origin } = request.headers;
    return (
      this.hostAllowed(request) &&
      (this.options.allowedOrigins === false ||
        origin === undefined ||
        this.originVerdicts.remember(origin, this.allowsOrigin))
    );
  }

  /** The SDK's refusal of a request that failed a check; the first of each Host is logged. */
  rejection(request: HttpRequestLike, webRequest: Request): Response | undefined {
    const { allowedHosts, allowedOrigins } = this.options;
    if (!this.hostAllowed(request)) this.logRefusedHost(request.headers.host);
    return (
      (allowedHosts === false ? undefined : hostHeaderValidationResponse(webRequest, this.hosts)) ??
      (allowedOrigins === false ? undefined : originValidationResponse(webRequest, this.origins))
    );
  }

  private hostAllowed(request: HttpRequestLike): boolean {
    return (
      this.options.allowedHosts === false ||
      this.hostVerdicts.remember(request.headers.host, this.allowsHost)
    );
  }

  private logRefusedHost(host: string | string[] | undefined): void {
    if (this.loggedHosts.size > MAX_LOGGED_HOSTS) return;
    const quoted =
      host === undefined ? '(none)' : JSON.stringify(String(host).slice(0, MAX_QUOTED_HOST));
    if (this.loggedHosts.has(quoted)) return;
    if (this.loggedHosts.size === MAX_LOGGED_HOSTS) {
      // One slot past the bound marks the last line as written.
      this.loggedHosts.add('');
      return this.warn(MCP_MESSAGES.hostsRefusedQuiet(MAX_LOGGED_HOSTS));
    }
    this.loggedHosts.add(quoted);
    this.warn(MCP_MESSAGES.hostRefused(quoted));
  }
}
