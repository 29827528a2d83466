/** The health of one part, as `@nestjs/terminus` indicators report it (`HealthIndicatorResult`). */
export type ToolsHealthIndicatorResult<Key extends string = string> = Record<
  Key,
  {
    status: 'up' | 'down';
    /** Readiness: whether the application is shutting down (its calls draining). */
    draining?: boolean;
    /** Readiness: whether the configured Redis (instance bus, task store) answers; absent without one. */
    redis?: 'up' | 'down';
    /** Why the part is down. */
    message?: string;
  }
>;

/** Options of {@link ToolsHealthModule.forRoot}. */
export interface ToolsHealthOptions {
  /**
   * Serve `GET <path>/live` and `GET <path>/ready` (200 when up, 503 when down, with a body
   * shaped as `@nestjs/terminus` answers). Leave it out when the application serves its health
   * checks with terminus: inject `ToolsHealthIndicator` into them instead.
   */
  path?: string;
  /**
   * The most often the configured Redis is pinged: a probe within this time of the last ping is
   * answered from it. @default 5000
   */
  redisIntervalMs?: number;
  /** The key of the indicator's result in the route's body. @default 'toolwright' */
  key?: string;
}
