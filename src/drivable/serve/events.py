"""Resumable SSE for handshake-era HTTP sessions: an in-memory, bounded event store.

With it, each POST stream of a 2025-11-25 session opens with a priming event (an event id, empty
data, and a `retry` hint), every message on it gets an id, and a client whose stream dropped
(or was released by the server, see `ClientSide.release_stream`) reconnects with GET and
`Last-Event-ID` and receives what it missed. Sessions live in one process, so does this store.

Memory is bounded: at most `max_streams` streams (the least recently written are forgotten
first) of at most `max_events` events each. A client reconnecting after its stream was forgotten
gets no replay, as after a restart.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict, deque

from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp_types import JSONRPCMessage

RETRY_MS = 1000  # how soon a client should reconnect after its stream closed


class MemoryEventStore(EventStore):
    def __init__(self, *, max_streams: int = 1024, max_events: int = 256) -> None:
        self.max_streams = max_streams
        self.max_events = max_events
        self._streams: OrderedDict[StreamId, deque[tuple[int, JSONRPCMessage | None]]] = (
            OrderedDict()
        )
        self._where: dict[int, StreamId] = {}
        self._ids = itertools.count(1)

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        number = next(self._ids)
        events = self._streams.get(stream_id)
        if events is None:
            events = self._streams[stream_id] = deque()
            while len(self._streams) > self.max_streams:
                _, dropped = self._streams.popitem(last=False)
                for old, _ in dropped:
                    self._where.pop(old, None)
        else:
            self._streams.move_to_end(stream_id)
        events.append((number, message))
        self._where[number] = stream_id
        while len(events) > self.max_events:
            old, _ = events.popleft()
            self._where.pop(old, None)
        return str(number)

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        try:
            after = int(last_event_id)
        except ValueError:
            return None
        stream_id = self._where.get(after)
        if stream_id is None:
            return None
        for number, message in list(self._streams.get(stream_id, ())):
            if number > after and message is not None:
                await send_callback(EventMessage(message, str(number)))
        return stream_id
