import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';

/** The 2026-era revision the SDK serves (2.4.x), and the one whose answers the direct path writes. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/**
 * Every protocol revision the endpoint serves: the SDK's 2025-era list (the SDK exports no list
 * of its 2026-era ones) and {@link MODERN_PROTOCOL_VERSION}. A version a client names that is
 * not one of them is no version of this server's.
 */
export const SERVED_PROTOCOL_VERSIONS: ReadonlySet<string> = new Set([
  ...SUPPORTED_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSION,
]);
