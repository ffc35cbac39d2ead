"""Headless Chromium (Debian's package) driven over the DevTools protocol, for the report pages.

A test opens a page as a reader would and asks the browser what it did: the DOM after load, the
console's errors and exceptions, every request the page made, and screenshots decoded here (a
small PNG reader: Chromium writes 8-bit RGB or RGBA, not interlaced) so a test can say which
colour is where.

    python -m tests.browser PAGE.html OUT.png [--width 1100] [--height 1400] [--scale 1]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import signal
import struct
import subprocess
import tempfile
import time
import urllib.request
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "ensure-chromium.sh"
CHROMIUM = Path("/usr/bin/chromium")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--force-color-profile=srgb",  # a fill of #2b6cd9 is that colour in the screenshot
    "--remote-debugging-port=0",
)


class ChromiumMissing(RuntimeError):
    pass


def ensure_chromium() -> Path:
    """/usr/bin/chromium, installed by scripts/ensure-chromium.sh when missing (it waits for an
    install `make counterparts` started)."""
    if os.access(CHROMIUM, os.X_OK):
        return CHROMIUM
    proc = subprocess.run(
        ["bash", str(SCRIPT)], capture_output=True, text=True, timeout=1800, check=False
    )
    if proc.returncode != 0 or not os.access(CHROMIUM, os.X_OK):
        raise ChromiumMissing(
            f"headless Chromium is missing ({CHROMIUM}): run `make counterparts`, which installs "
            f"Debian's chromium package; {SCRIPT.name} said: {proc.stderr[-1500:]}"
        )
    return CHROMIUM


# -- the DevTools protocol -----------------------------------------------------------------------


class Page:
    """One tab: commands answered in order, events kept for the test to read."""

    def __init__(self, ws_url: str) -> None:
        from websockets.sync.client import connect

        # loopback: no proxy from the environment; screenshots are large messages
        self._ws = connect(
            ws_url, proxy=None, max_size=None, ping_interval=None, open_timeout=30
        ).__enter__()
        self._next = 0
        self.events: list[dict[str, Any]] = []

    def close(self) -> None:
        self._ws.close()

    def call(self, method: str, timeout: float = 60.0, **params: Any) -> dict[str, Any]:
        self._next += 1
        ident = self._next
        self._ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            message = json.loads(self._ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return dict(message.get("result") or {})
            self.events.append(message)

    def wait_for(self, event: str, timeout: float = 60.0) -> dict[str, Any]:
        for message in self.events:
            if message.get("method") == event:
                return message
        deadline = time.monotonic() + timeout
        while True:
            received: dict[str, Any] = json.loads(
                self._ws.recv(timeout=max(0.1, deadline - time.monotonic()))
            )
            self.events.append(received)
            if received.get("method") == event:
                return received

    def open(self, path: Path, width: int = 1100, height: int = 900) -> None:
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        self.call("Page.navigate", url=path.resolve().as_uri())
        self.wait_for("Page.loadEventFired")
        self.evaluate("document.fonts.ready.then(() => true)")

    def evaluate(self, expression: str) -> Any:
        result = self.call(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    @property
    def problems(self) -> list[str]:
        """Console errors and assertions, uncaught exceptions, and the browser's own error log
        (a blocked load, a refused policy)."""
        found = []
        for m in self.events:
            method, params = m.get("method"), m.get("params") or {}
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(f"console.{params['type']}: {params.get('args')}")
            elif method == "Runtime.exceptionThrown":
                found.append(f"exception: {params.get('exceptionDetails')}")
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                found.append(f"log: {params['entry'].get('text')} {params['entry'].get('url', '')}")
        return found

    @property
    def requests(self) -> list[str]:
        return [
            m["params"]["request"]["url"]
            for m in self.events
            if m.get("method") == "Network.requestWillBeSent"
        ]

    def screenshot(
        self, x: float, y: float, width: float, height: float, scale: float = 1
    ) -> Image:
        """The page's region at CSS pixels (x, y) of that size, beyond the viewport too."""
        shot = self.call(
            "Page.captureScreenshot",
            format="png",
            captureBeyondViewport=True,
            clip={"x": x, "y": y, "width": width, "height": height, "scale": scale},
        )
        return decode_png(base64.b64decode(shot["data"]))

    def png(self, width: float, height: float, scale: float = 1) -> bytes:
        shot = self.call(
            "Page.captureScreenshot",
            format="png",
            captureBeyondViewport=True,
            clip={"x": 0, "y": 0, "width": width, "height": height, "scale": scale},
        )
        return base64.b64decode(shot["data"])

    def boxes(self, selector: str) -> list[dict[str, Any]]:
        """The page-coordinate box and the attributes of every element `selector` matches."""
        return list(
            self.evaluate(
                f"""Array.from(document.querySelectorAll({json.dumps(selector)})).map(e => {{
                  const r = e.getBoundingClientRect();
                  const attrs = Object.fromEntries(Array.from(e.attributes).map(a => [a.name, a.value]));
                  return {{x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height,
                           attrs: attrs, text: e.textContent}};
                }})"""
            )
        )


class Browser:
    def __init__(self, workdir: Path) -> None:
        binary = ensure_chromium()
        self.profile = workdir / "profile"
        self.log_path = workdir / "chromium.log"
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                [str(binary), *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                start_new_session=True,
            )
        self.port = self._port()
        self._pages: list[Page] = []

    def _port(self, timeout: float = 60.0) -> int:
        marker = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                first = marker.read_text().splitlines()[0]
                return int(first)
            except (OSError, IndexError, ValueError):
                time.sleep(0.1)
        self.close()
        raise RuntimeError(
            f"chromium gave no DevTools port: {self.log_path.read_text(errors='replace')[-2000:]}"
        )

    def page(self) -> Page:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/json/new?about:blank", method="PUT"
        )
        with opener.open(request, timeout=30) as answer:
            target = json.loads(answer.read())
        page = Page(target["webSocketDebuggerUrl"])
        self._pages.append(page)
        return page

    def close(self) -> None:
        for page in self._pages:
            page.close()
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)  # its own session: the browser and its helpers
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=20)


@contextmanager
def chromium(workdir: Path | None = None) -> Iterator[Browser]:
    with tempfile.TemporaryDirectory(prefix="drivable-chromium-") as tmp:
        browser = Browser(workdir or Path(tmp))
        try:
            yield browser
        finally:
            browser.close()


# -- PNG ---------------------------------------------------------------------------------------


@dataclass
class Image:
    width: int
    height: int
    channels: int
    rows: list[bytes]

    def pixel(self, x: int, y: int) -> tuple[int, int, int]:
        i = x * self.channels
        r, g, b = self.rows[y][i : i + 3]
        return (r, g, b)


def decode_png(data: bytes) -> Image:
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, b""
    width = height = depth = colour = interlace = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(
            f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}"
        )
    bpp = 4 if colour == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(height):
        start = y * (stride + 1)
        filtering, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        if filtering == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif filtering == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xFF
        elif filtering == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif filtering == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        elif filtering != 0:
            raise ValueError(f"unknown PNG filter {filtering}")
        rows.append(bytes(line))
        prev = line
    return Image(width, height, bpp, rows)


def hex_rgb(colour: str) -> tuple[int, int, int]:
    value = colour.lstrip("#")
    return (int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16))


def close_to(a: tuple[int, int, int], b: tuple[int, int, int], tolerance: int = 8) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


# -- what every report page must do in the browser ----------------------------------------------

EMBEDS = "script,img,iframe,link,object,embed,video,audio,source,base,form"
URL_ATTRIBUTES = ("src", "href", "srcset", "action", "poster", "data", "xlink:href")


@contextmanager
def browser_or_fail(workdir: Path) -> Iterator[Browser]:
    """A browser for a test module; a machine without Chromium fails, naming the fix."""
    import pytest

    try:
        browser = Browser(workdir)
    except ChromiumMissing as error:
        pytest.fail(str(error), pytrace=False)
    try:
        yield browser
    finally:
        browser.close()


def assert_self_contained(page: Page, path: Path) -> None:
    """Loaded quietly, with no request but the file itself, nothing embedded or fetched, no web
    address in an attribute that loads or links (one in text is text)."""
    assert page.problems == []
    assert page.requests == [path.resolve().as_uri()]
    assert page.evaluate(f"document.querySelectorAll({json.dumps(EMBEDS)}).length") == 0
    values = page.evaluate(
        f"""Array.from(document.querySelectorAll('*')).flatMap(e =>
              {json.dumps(URL_ATTRIBUTES)}.map(a => e.getAttribute(a)).filter(v => v !== null))"""
    )
    assert [v for v in values if not v.startswith("#")] == []


def assert_bars_show_their_colours(page: Page, chart: str) -> int:
    """Every bar of the charts `chart` selects is its fill colour at its centre in a screenshot of
    its chart; returns how many bars were looked at."""
    seen = 0
    for i, svg in enumerate(page.boxes(chart)):
        image = page.screenshot(svg["x"], svg["y"], svg["width"], svg["height"])
        bars = page.evaluate(
            f"""Array.from(document.querySelectorAll({json.dumps(chart)})[{i}]
                  .querySelectorAll('rect.bar')).map(r => {{
                const b = r.getBoundingClientRect();
                return {{x: b.x + scrollX, y: b.y + scrollY, width: b.width, height: b.height,
                         fill: r.getAttribute('fill')}};
              }})"""
        )
        for bar in bars:
            if bar["width"] < 4 or bar["height"] < 4:
                continue  # a sliver's centre is antialiased
            x = int(bar["x"] + bar["width"] / 2 - svg["x"])
            y = int(bar["y"] + bar["height"] / 2 - svg["y"])
            got = image.pixel(x, y)
            assert close_to(got, hex_rgb(bar["fill"])), (bar, got)
            seen += 1
    return seen


def assert_not_blank(page: Page, width: int, height: int) -> None:
    """The first screen shows something: ink on a white page, in more than a few colours."""
    image = page.screenshot(0, 0, width, height, scale=0.5)
    pixels = [
        image.pixel(x, y) for y in range(0, image.height, 2) for x in range(0, image.width, 2)
    ]
    inked = sum(1 for p in pixels if p != (255, 255, 255))
    assert inked / len(pixels) > 0.03
    assert len(set(pixels)) > 20


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.browser")
    parser.add_argument("page", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--width", type=int, default=1100)
    parser.add_argument("--height", type=int, default=1400)
    parser.add_argument("--scale", type=float, default=1.0)
    args = parser.parse_args()
    with chromium() as browser:
        page = browser.page()
        page.open(args.page, width=args.width, height=args.height)
        args.out.write_bytes(page.png(args.width, args.height, args.scale))
        for problem in page.problems:
            print(problem)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
