"""Tiny media the fixture serves, built in code rather than shipped as binary files."""

from __future__ import annotations

import struct
import zlib


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def png_pixel(red: int, green: int, blue: int) -> bytes:
    """A 1x1 RGB PNG of one colour."""
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    row = bytes([0, red, green, blue])  # filter byte 0, then one RGB pixel
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(row))
        + _png_chunk(b"IEND", b"")
    )


def wav_silence(milliseconds: int, rate: int = 8000) -> bytes:
    """Mono 8-bit PCM silence (the sample value 128 is zero for unsigned 8-bit)."""
    frames = rate * milliseconds // 1000
    data = bytes([128]) * frames
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate, 1, 8)
    return (
        b"RIFF"
        + struct.pack("<I", 4 + 8 + len(fmt) + 8 + len(data))
        + b"WAVE"
        + b"fmt "
        + struct.pack("<I", len(fmt))
        + fmt
        + b"data"
        + struct.pack("<I", len(data))
        + data
    )


RED_PIXEL_PNG = png_pixel(255, 0, 0)
SILENT_WAV = wav_silence(100)
