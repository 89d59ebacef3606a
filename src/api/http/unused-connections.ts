/**
 * Connections that never sent a byte, ended when a server closes. Node's `server.close()` ends idle keep-alive
 * connections at once and lets requests in flight finish, but it counts a connection that has not sent a request yet
 * as busy (its headers timeout runs from the moment it opened), so close waits until the client drops it: a load
 * balancer's warm connection, or one a client opened and never used (undici keeps such a connection after an aborted
 * request, for 4 s). Such a connection has nothing to finish. One that sent anything (a request, a part of one, an
 * upgrade to a WebSocket) is left to Node and to whoever took it over.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** Tracks `server`'s open connections; answers a function that ends those that have not sent a byte. */
export function trackUnusedConnections(server: Server): () => void {
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return () => {
    for (const socket of open) if (socket.bytesRead === 0) socket.destroy();
  };
}
