"""A room-booking server written the way FastMCP servers are (plain MCPServer tools): its errors
name the next call in words, as "Use get_room with the day to see free times" does, and carry no
envelope. Runnable as a script for stdio."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

TIMES = ("09:00", "09:30", "10:00", "10:30", "11:00")
# what is booked already, per room and day (09:00 of room_7 on 2026-06-01: the user's wish)
TAKEN = {("room_7", "2026-06-01"): {"09:00", "09:30"}, ("room_3", "2026-06-01"): {"10:00"}}
ROOMS = ("room_3", "room_7")

server = MCPServer("rooms-prose", version="1.0.0")


@server.tool()
def get_room(room_id: str, day: str) -> dict[str, Any]:
    """Get a room's free times on a day."""
    if room_id not in ROOMS:
        raise ToolError(f"No room {room_id}. Call list_rooms to see the rooms.")
    taken = TAKEN.get((room_id, day), set())
    return {"room_id": room_id, "day": day, "free": [t for t in TIMES if t not in taken]}


@server.tool()
def list_rooms() -> dict[str, Any]:
    """List the rooms."""
    return {"rooms": list(ROOMS)}


@server.tool()
def book_room(room_id: str, day: str, time: str) -> dict[str, Any]:
    """Book a room at a time on a day."""
    if room_id not in ROOMS:
        raise ToolError(f"No room {room_id}. Call list_rooms to see the rooms.")
    if time not in TIMES or time in TAKEN.get((room_id, day), set()):
        raise ToolError(
            f"{room_id} is not free at {time} on {day}. Use get_room with the day to see free times."
        )
    return {"booked": True, "room_id": room_id, "day": day, "time": time}


if __name__ == "__main__":
    server.run()
