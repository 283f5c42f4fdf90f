// What the server is started with: the database, the logger and every setting a command line or a test
// gives buildServer (api/server.ts).

import type { Db } from '../common/db/duckdb.ts';
import type { Logger } from '../common/logger.ts';
import type { ReadModelLimits } from './analytics/memory.ts';
import type { CacheLimits } from './answers/cache.ts';
import type { AlertOptions } from './budgets/alerts.ts';
import type { IngestLimits } from './ingest/limits.ts';

export interface ServerOptions {
  db: Db;
  log: Logger;
  /** HS256 secret for JWT bearer tokens; JWTs are refused when absent. */
  jwtSecret?: string | undefined;
  /** Longest accepted JWT lifetime (exp - iat, or exp - now without iat), in seconds (default 24 h). */
  jwtMaxLifetimeSeconds?: number | undefined;
  /** The clock of the analytics date rules (tests pin it). */
  now?: () => Date;
  pricingFile?: string | undefined;
  /** Daily batch time, HH:MM UTC; null turns the schedule off. */
  batchAt?: string | null;
  /** Limits of the analytics response cache (default DEFAULT_CACHE_LIMITS; a 0 turns it off). */
  cache?: Partial<CacheLimits>;
  /** Limits of the analytics read model (default DEFAULT_READ_MODEL_LIMITS; maxRows 0: every answer reads DuckDB). */
  readModel?: Partial<ReadModelLimits> | undefined;
  /** Worker threads that decode ingest bodies (0: decode on the event loop; default: defaultDecodeWorkers()). */
  decodeWorkers?: number | undefined;
  /** Limits of one ingest request (default DEFAULT_INGEST_LIMITS, api/ingest/limits.ts). */
  ingestLimits?: Partial<IngestLimits> | undefined;
  /**
   * Longest a client may take to send a whole request, headers and body (default REQUEST_TIMEOUT_MS);
   * Node checks every CONNECTIONS_CHECK_MS, so a stalled request is answered 408 and closed within the sum.
   */
  requestTimeoutMs?: number | undefined;
  /** How often Node looks for requests past their timeout (default CONNECTIONS_CHECK_MS). */
  connectionsCheckMs?: number | undefined;
  /** Turns GET /metrics on, for this bearer token (at least 32 characters); off when absent. */
  metricsToken?: string | undefined;
  /**
   * Addresses of the reverse proxies in front of this server (comma-separated IPs or CIDRs). Only their
   * X-Forwarded-Proto/-Host/-For are believed: the sign-in cookie is then Secure behind a TLS proxy, and
   * the dashboard's same-origin check compares with the host the browser used. Unset: none is believed.
   */
  trustProxy?: string | undefined;
  /** The built dashboard (default web/dist of the checkout). */
  webDist?: string | undefined;
  /** The built laptop bundle that /install/<version>/ serves (default dist/laptop of the checkout). */
  laptopDist?: string | undefined;
  /** The URL developer machines reach this server at, written into /install.sh (default: the request's Host). */
  publicUrl?: string | undefined;
  /** Identity providers may be http and on private or loopback addresses (serve --allow-private-oidc; api/oidc/guard.ts). */
  allowPrivateOidc?: boolean | undefined;
  /** Budget alert delivery: `allowPrivate` is serve --allow-private-webhooks; retries and timeouts for tests. */
  alerts?: AlertOptions | undefined;
  /** Check every answer of a declared route against its declared schema (tests; api/openapi/declare.ts). */
  checkAnswers?: boolean | undefined;
}
