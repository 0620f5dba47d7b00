/**
 * A TCP proxy in front of a PostgreSQL server that can break the next COMMIT
 * of whichever connection sends one: cut the connection before the COMMIT
 * reaches the server (nothing is committed), or after the server applied it
 * and before its answer comes back (committed, but the client never hears
 * so), the moment a database restart can fall on. New connections can be
 * held meanwhile, as a server that is starting again does.
 */
import { connect, createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';

/** How the next COMMIT is broken. */
export type CommitBreak = 'before-commit' | 'answer-lost';

/** The proxy; `url(database)` is the database's URL through it. */
export interface PgCommitProxy {
  /** `databaseUrl` with its host and port replaced by the proxy's. */
  url(databaseUrl: string): string;
  /**
   * Breaks the next COMMIT of a transaction that sent a statement holding `containing`
   * (any transaction when empty), then holds new connections for `holdMs`.
   */
  breakNextCommit(how: CommitBreak, options?: { containing?: string; holdMs?: number }): void;
  /** COMMITs broken so far. */
  broken(): number;
  close(): Promise<void>;
}

/** A simple-protocol Query message holding exactly `COMMIT` (what `pg` sends for a transaction's end). */
const COMMIT_QUERY = Buffer.concat([Buffer.from('Q'), Buffer.from([0, 0, 0, 11]), Buffer.from('COMMIT\0')]);

export async function startPgCommitProxy(target: { host: string; port: number }): Promise<PgCommitProxy> {
  const sockets = new Set<Socket>();
  let armed: { how: CommitBreak; containing: string; holdMs: number } | null = null;
  let heldUntil = 0;
  let broken = 0;
  const server = createServer((client) => {
    sockets.add(client);
    client.pause();
    const pass = () => {
      if (client.destroyed) return;
      const upstream = connect(target.port, target.host);
      sockets.add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      let doomed = false;
      /** The statements of this connection's transaction so far (what `containing` is looked for in). */
      let statements = '';
      client.on('data', (chunk: Buffer) => {
        if (armed) statements = (statements + chunk.toString('latin1')).slice(-100_000);
        if (armed && chunk.includes(COMMIT_QUERY) && statements.includes(armed.containing)) {
          const { how, holdMs } = armed;
          armed = null;
          broken++;
          heldUntil = Date.now() + holdMs;
          if (how === 'before-commit') return drop();
          doomed = true;
        }
        if (chunk.includes(COMMIT_QUERY)) statements = '';
        upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => {
        // The server answered the COMMIT (it is applied): the answer is lost with the connection.
        if (doomed) return drop();
        client.write(chunk);
      });
      client.resume();
    };
    const wait = heldUntil - Date.now();
    if (wait > 0) setTimeout(pass, wait);
    else pass();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url(databaseUrl) {
      const url = new URL(databaseUrl);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    breakNextCommit(how, { containing = '', holdMs = 0 } = {}) {
      armed = { how, containing, holdMs };
    },
    broken: () => broken,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
