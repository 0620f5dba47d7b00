/**
 * A TCP proxy on port 0 in front of a test server, for the fault tests of the
 * client, the waits and the adversarial suite: it can cut every connection at
 * once and hold new ones.
 */
import { createServer, connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A TCP proxy in front of the server. It notices which of its connections carry
 * an event stream that went live (the server sent `event: ready`), can cut every
 * connection, and can hold new connections (accepted, but not passed on) until released.
 */
export interface TcpProxy {
  url: string;
  /** Connections whose answer carried `event: ready` and that are still open. */
  liveStreams(): number;
  /** Event-stream requests seen so far. */
  streamRequests(): number;
  /** Requests for the message list seen so far. */
  listRequests(): number;
  /** Destroys every open connection; returns how many. */
  cut(): number;
  /** While held, new connections wait (unanswered) until `release()`. */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: URL): Promise<TcpProxy> {
  const pairs = new Set<{ client: Socket; upstream: Socket | null; stream: boolean; live: boolean }>();
  const held: Array<() => void> = [];
  let holding = false;
  let streamRequests = 0;
  let listRequests = 0;
  const server = createServer((client) => {
    const pair = { client, upstream: null as Socket | null, stream: false, live: false };
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      pair.upstream?.destroy();
    };
    client.on('error', drop).on('close', drop);
    client.pause();
    const pass = () => {
      if (client.destroyed) return;
      const upstream = connect(Number(target.port), target.hostname);
      pair.upstream = upstream;
      upstream.on('error', drop).on('close', drop);
      client.on('data', (chunk: Buffer) => {
        const head = chunk.toString('latin1', 0, 200);
        if (/^GET [^ ]*\/stream[ ?]/.test(head)) {
          pair.stream = true;
          streamRequests++;
        }
        if (/^GET [^ ]*\/messages\?/.test(head)) listRequests++;
      });
      upstream.on('data', (chunk: Buffer) => {
        if (pair.stream && chunk.toString('utf8').includes('event: ready')) pair.live = true;
      });
      client.pipe(upstream).pipe(client);
      client.resume();
    };
    if (holding) held.push(pass);
    else pass();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const destroyAll = () => {
    const n = pairs.size;
    for (const pair of [...pairs]) {
      pair.client.destroy();
      pair.upstream?.destroy();
    }
    return n;
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    liveStreams: () => [...pairs].filter((p) => p.live && !p.client.destroyed).length,
    streamRequests: () => streamRequests,
    listRequests: () => listRequests,
    cut: destroyAll,
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      for (const pass of held.splice(0)) pass();
    },
    close: () =>
      new Promise<void>((resolve) => {
        holding = false;
        held.splice(0);
        destroyAll();
        server.close(() => resolve());
      }),
  };
}
