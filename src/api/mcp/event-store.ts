/**
 * Resumability for one MCP session's SSE streams (Last-Event-ID): the messages sent on each stream
 * are kept, in order, up to a bound per session, so a client that lost its connection gets what it
 * missed. In memory, as the session itself is: a restart ends every session (the client
 * re-initializes, docs/mcp.md "Sessions").
 */
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

interface StoredEvent {
  id: string;
  streamId: string;
  message: JSONRPCMessage;
}

export function createSessionEventStore(maxEvents: number): EventStore {
  const events: StoredEvent[] = [];
  let sequence = 0;
  // Event ids carry their stream so an id from another session or an evicted one is simply unknown.
  const streamOf = (eventId: string): string | undefined => events.find((e) => e.id === eventId)?.streamId;

  return {
    async storeEvent(streamId, message) {
      const id = `${streamId}.${++sequence}`;
      events.push({ id, streamId, message });
      if (events.length > maxEvents) events.splice(0, events.length - maxEvents);
      return id;
    },
    async getStreamIdForEventId(eventId) {
      return streamOf(eventId);
    },
    async replayEventsAfter(lastEventId, { send }) {
      const index = events.findIndex((e) => e.id === lastEventId);
      if (index < 0) return '';
      const { streamId } = events[index]!;
      for (const event of events.slice(index + 1)) {
        // Priming events (empty data) mark a position; they carry no message to replay.
        if (event.streamId === streamId && Object.keys(event.message).length > 0) await send(event.id, event.message);
      }
      return streamId;
    },
  };
}
