"""Reading settings from TOML or JSON files: data only, never pickle or code."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

SUFFIXES = (".toml", ".json")


def is_data_file(text: str) -> bool:
    """Whether ``text`` names a settings file rather than a name or spec."""
    return text.strip().lower().endswith(SUFFIXES)


def read_data_file(path: str | Path, what: str) -> dict[str, Any]:
    """The table in a ``.toml`` or ``.json`` file; ``ValueError`` naming ``what`` otherwise."""
    file = Path(path)
    if file.suffix.lower() not in SUFFIXES:
        raise ValueError(f"{what} {path}: use a .toml or .json file")
    if file.is_dir():
        raise ValueError(f"{what} {path}: is a folder, not a file")
    if not file.is_file():
        raise ValueError(f"{what} {path}: no such file")
    kind = file.suffix[1:].upper()
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{what} {path}: not a text file (expected UTF-8 {kind})") from None
    except OSError as error:
        raise ValueError(f"{what} {path}: cannot be read ({error.strerror})") from None
    try:
        data = tomllib.loads(text) if file.suffix.lower() == ".toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{what} {path}: not valid {kind} ({error})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{what} {path}: the file must hold a table of settings")
    return data
