/**
 * Fair shares of the MCP sessions table: the table has a total, and each
 * caller may hold at most its share, so that one caller can use up only its
 * own. A credential the operator hands out (an API key, a session token) is
 * one caller wherever it calls from; a guest (no credential, or an inbox
 * token, which any guest can mint) is charged to its client address as well.
 * When the table is full, a caller holding less than the largest holder takes
 * the least recently used session of that holder, so a newcomer is never
 * refused for the idle timeout (30 minutes) because others filled the table.
 *
 * @packageDocumentation
 */

/** The bounds of the sessions table. */
export interface SessionShareLimits {
  /** Sessions open at once on this node. */
  total: number;
  /** Sessions one credential may hold. */
  perCredential: number;
  /** Sessions the guests of one client address may hold together. */
  perGuestAddress: number;
}

/** Who opens a session. */
export interface SessionCaller {
  /** A hash naming the credential, or null for none. */
  credential: string | null;
  /** The client address of the request. */
  address: string;
  /** A guest: no credential, or an inbox token. */
  guest: boolean;
}

/** What the table needs to know of a held session. */
export interface HeldSession {
  /** The keys it is charged to. */
  keys: readonly string[];
  /** When it was last used (epoch ms). */
  lastUsed: number;
}

/** A refusal: the HTTP status, the message naming the bound, and Retry-After seconds. */
export interface ShareRefusal {
  status: 429 | 503;
  message: string;
  retryAfterSeconds: number;
}

/** The keys a caller's sessions are charged to: its credential, and a guest's address. */
export function sessionKeys(caller: SessionCaller): string[] {
  const keys: string[] = [];
  if (caller.credential !== null) keys.push(`cred:${caller.credential}`);
  if (caller.guest) keys.push(`addr:${caller.address}`);
  return keys;
}

function countByKey(sessions: Iterable<HeldSession>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of sessions) for (const key of s.keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

/**
 * Decides whether `caller` may open one more session: `'open'`, the id of a
 * session to close first to make room (the least recently used one of the
 * largest holder), or a refusal naming the bound.
 *
 * @param sessions - The sessions held now, by id.
 * @param opening - Sessions being opened now that are not in `sessions` yet (they count too): how many, and by key.
 */
export function admitSession(
  limits: SessionShareLimits,
  caller: SessionCaller,
  sessions: ReadonlyMap<string, HeldSession>,
  opening: { total: number; byKey: ReadonlyMap<string, number> },
): 'open' | { evict: string } | ShareRefusal {
  const counts = countByKey(sessions.values());
  for (const [key, n] of opening.byKey) counts.set(key, (counts.get(key) ?? 0) + n);
  const keys = sessionKeys(caller);
  for (const key of keys) {
    const share = key.startsWith('addr:') ? limits.perGuestAddress : limits.perCredential;
    if ((counts.get(key) ?? 0) < share) continue;
    const who = key.startsWith('addr:') ? `the guests of ${caller.address} have` : 'this credential has';
    return {
      status: 429,
      message: `${who} ${share} open MCP sessions, the share one caller may hold (of ${limits.total} on this service); close one (DELETE with its Mcp-Session-Id) or let one idle out.`,
      retryAfterSeconds: 60,
    };
  }
  if (sessions.size + opening.total < limits.total) return 'open';
  // Full: the largest holder gives up its least recently used session, if it holds more than this caller would.
  const mine = Math.max(0, ...keys.map((k) => counts.get(k) ?? 0));
  let largest: string | null = null;
  for (const [key, n] of counts) if (!keys.includes(key) && n > mine + 1 && (largest === null || n > (counts.get(largest) ?? 0))) largest = key;
  if (largest !== null) {
    let victim: [string, HeldSession] | null = null;
    for (const entry of sessions) if (entry[1].keys.includes(largest) && (victim === null || entry[1].lastUsed < victim[1].lastUsed)) victim = entry;
    if (victim !== null) return { evict: victim[0] };
  }
  return {
    status: 503,
    message: `This service has ${limits.total} open MCP sessions, its limit, shared fairly among its callers; close one (DELETE with its Mcp-Session-Id) or retry later.`,
    retryAfterSeconds: 60,
  };
}
