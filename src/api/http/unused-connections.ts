/**
 * Connections that never sent a request, ended when a server closes. Node's `server.close()` ends idle keep-alive
 * connections at once and lets requests in flight finish, but it counts a connection that has not sent a request yet
 * as busy (its headers timeout runs from the moment it opened), so close waits until the client drops it: a load
 * balancer's warm connection, or one a client opened and never used (undici keeps such a connection after an aborted
 * request, for 4 s). Such a connection has nothing to finish.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** Tracks `server`'s connections until each sends its first request; answers a function that ends the rest. */
export function trackUnusedConnections(server: Server): () => void {
  const unused = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    unused.add(socket);
    socket.once('close', () => unused.delete(socket));
  });
  server.on('request', (req: { socket: Socket }) => unused.delete(req.socket));
  return () => {
    for (const socket of unused) socket.destroy();
    unused.clear();
  };
}
