/**
 * The smallest Socket.IO (v4, Engine.IO 4) client that can listen to MailDev's
 * push channel: WebSocket transport only, default namespace, events in, pongs
 * out. Written on Node's built-in WebSocket so the benchmark needs no extra
 * dependency; it does less work per event than socket.io-client, which only
 * favours the peer.
 *
 * @packageDocumentation
 */

/** A connected Socket.IO client. */
export interface SocketIoClient {
  /** Calls `listener` with the payload of each `event`; returns an unsubscribe function. */
  on(event: string, listener: (payload: unknown) => void): () => void;
  close(): void;
}

/** Connects to a Socket.IO server at `origin` (e.g. `http://127.0.0.1:1080`), resolving once the namespace is joined. */
export function connectSocketIo(origin: string, path = '/socket.io/'): Promise<SocketIoClient> {
  const url = `${origin.replace(/^http/, 'ws')}${path}?EIO=4&transport=websocket`;
  const ws = new WebSocket(url);
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  return new Promise((resolve, reject) => {
    let joined = false;
    ws.addEventListener('error', () => {
      if (!joined) reject(new Error(`bench: cannot open the Socket.IO WebSocket at ${url}`));
    });
    ws.addEventListener('message', (event) => {
      const packet = String(event.data);
      const type = packet[0];
      if (type === '0') ws.send('40'); // Engine.IO open → join the default namespace
      else if (type === '2') ws.send('3'); // ping → pong
      else if (packet.startsWith('40')) {
        joined = true;
        resolve({
          on(name, listener) {
            let set = listeners.get(name);
            if (!set) listeners.set(name, (set = new Set()));
            set.add(listener);
            return () => set.delete(listener);
          },
          close() {
            ws.close();
          },
        });
      } else if (packet.startsWith('42')) {
        const [name, payload] = JSON.parse(packet.slice(2)) as [string, unknown];
        for (const listener of listeners.get(name) ?? []) listener(payload);
      } else if (packet.startsWith('44')) {
        reject(new Error(`bench: Socket.IO refused the connection: ${packet.slice(2)}`));
      }
    });
  });
}
