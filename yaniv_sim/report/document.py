"""A report as sections of text, tables and figures, written as Markdown and HTML.

A :class:`Section` collects blocks in order; :func:`write_report` writes
``report.md`` (figures as PNG files beside it) and ``report.html``, one
self-contained page with the figures embedded, readable offline.
"""

from __future__ import annotations

import base64
import dataclasses
import html
import io
import re
import struct
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pandas as pd

__all__ = ["DPI", "Figure", "Section", "Table", "markdown_table", "png_size", "write_report"]

DPI = 110  # the size a figure is meant to be seen at: pixels per inch on the page
SCALE = 2  # PNGs are rendered at twice that, for sharp text on high-density screens


@dataclasses.dataclass
class Table:
    frame: pd.DataFrame  # already formatted: every cell is printed as str(cell)
    caption: str = ""


@dataclasses.dataclass
class Figure:
    name: str  # file stem, unique within the report
    png: bytes
    caption: str


@dataclasses.dataclass
class Section:
    """One numbered part of a report.

    ``setup`` lists what the section's numbers come from (rule set,
    policies, how many rounds or games, seed, tool version); it is printed
    under the title.
    """

    title: str
    setup: dict[str, str] = dataclasses.field(default_factory=dict)
    blocks: list[str | Table | Figure] = dataclasses.field(default_factory=list)
    files: dict[str, bytes] = dataclasses.field(default_factory=dict)  # written beside the report
    # the analysis results behind the tables and sentences, unformatted (for tests and reuse)
    data: dict[str, pd.DataFrame] = dataclasses.field(default_factory=dict)

    def attach(self, name: str, content: str | bytes) -> None:
        """A file written next to the report (a CSV table, an exported policy)."""
        self.files[name] = content.encode("utf-8") if isinstance(content, str) else content

    def text(self, paragraph: str) -> None:
        """A paragraph of Markdown (``**bold**``, ``*italic*``, ``code`` and ``- `` lists,
        items indented by two spaces nested under the one before)."""
        self.blocks.append(paragraph.strip())

    def table(self, frame: pd.DataFrame, caption: str = "") -> None:
        self.blocks.append(Table(frame, caption))

    def figure(self, fig, name: str, caption: str) -> None:
        """Add a matplotlib figure (closed here) as a PNG with a caption."""
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=DPI * SCALE, bbox_inches="tight")
        plt.close(fig)
        self.blocks.append(Figure(name, buffer.getvalue(), caption))


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) in pixels of a PNG, from its header."""
    if not png.startswith(b"\x89PNG\r\n\x1a\n"):
        raise ValueError("not a PNG file")
    return struct.unpack(">II", png[16:24])


def markdown_table(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table of ``frame`` (index left out)."""
    head = [str(c) for c in frame.columns]
    rows = [[str(v).replace("|", "\\|") for v in row] for row in frame.itertuples(index=False)]
    right = [pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]
    lines = ["| " + " | ".join(head) + " |"]
    lines.append("|" + "|".join("---:" if r else "---" for r in right) + "|")
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _setup_line(setup: dict[str, str]) -> str:
    return "; ".join(f"{key}: {value}" for key, value in setup.items())


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower().replace("'", "")).strip("-")


def _inline_html(text: str) -> str:
    text = html.escape(text)
    # links to files beside the report: [name](name); the name may be code
    text = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", r'<a href="\2">\1</a>', text)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", text)
    return re.sub(r"(?<![*\w])\*([^*]+)\*(?!\*)", r"<em>\1</em>", text)


def _table_html(frame: pd.DataFrame) -> str:
    """An HTML table of ``frame`` (index left out); cells may hold inline Markdown (links)."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    rows = "".join(
        "<tr>" + "".join(f"<td>{_inline_html(str(v))}</td>" for v in row) + "</tr>"
        for row in frame.itertuples(index=False)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _paragraph_html(block: str) -> str:
    lines = block.splitlines()
    if (
        lines
        and lines[0].startswith("- ")
        and all(line.startswith(("- ", "  - ")) for line in lines)
    ):
        # a list; items indented by two spaces are a nested list under the item before
        html_items = []
        for line in lines:
            if line.startswith("  - "):
                html_items[-1][1].append(f"<li>{_inline_html(line[4:])}</li>")
            else:
                html_items.append((f"<li>{_inline_html(line[2:])}", []))
        items = "".join(
            head + (f"<ul>{''.join(sub)}</ul>" if sub else "") + "</li>" for head, sub in html_items
        )
        return f"<ul>{items}</ul>"
    return f"<p>{_inline_html(' '.join(lines))}</p>"


_CSS = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto;
       padding: 0 1rem; line-height: 1.45; color: #222; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.9rem; }
th, td { border: 1px solid #ccc; padding: 0.2rem 0.5rem; text-align: right; }
th { background: #f3f3f3; }
td:first-child, th:first-child { text-align: left; }
figure { margin: 1rem 0; } figure img { max-width: 100%; height: auto; }
figcaption, .caption { font-size: 0.85rem; color: #555; }
.setup { font-size: 0.85rem; color: #555; background: #f7f7f7; padding: 0.3rem 0.6rem; }
code { background: #f3f3f3; padding: 0 0.2rem; overflow-wrap: anywhere; }
p, li { overflow-wrap: break-word; }
"""


def write_report(
    sections: list[Section], folder: Path, title: str, preface: list[str]
) -> tuple[Path, Path]:
    """Write ``report.md``, its PNG figures and ``report.html`` into ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    md = [f"# {title}", "", *[p.strip() + "\n" for p in preface]]
    page = [f"<h1>{html.escape(title)}</h1>", *[_paragraph_html(p) for p in preface]]
    if len(sections) > 1:
        md.append("Contents:\n")
        page.append("<ol>")
        for i, section in enumerate(sections, 1):
            md.append(f"{i}. [{section.title}](#{_slug(f'{i}. {section.title}')})")
            page.append(f'<li><a href="#s{i}">{html.escape(section.title)}</a></li>')
        md.append("")
        page.append("</ol>")
    for i, section in enumerate(sections, 1):
        for name, content in section.files.items():
            (folder / name).write_bytes(content)
        md += [f"## {i}. {section.title}", "", f"*{_setup_line(section.setup)}*", ""]
        page.append(f'<h2 id="s{i}">{i}. {html.escape(section.title)}</h2>')
        page.append(f'<p class="setup">{_inline_html(_setup_line(section.setup))}</p>')
        for block in section.blocks:
            if isinstance(block, str):
                md += [block, ""]
                page.append(_paragraph_html(block))
            elif isinstance(block, Table):
                md += [markdown_table(block.frame), ""]
                if block.caption:
                    md += [f"*{block.caption}*", ""]
                page.append(f'<div class="scroll">{_table_html(block.frame)}</div>')
                if block.caption:
                    page.append(f'<p class="caption">{_inline_html(block.caption)}</p>')
            else:
                path = folder / f"{block.name}.png"
                path.write_bytes(block.png)
                md += [f"![{block.caption}]({path.name})", "", f"*{block.caption}*", ""]
                data = base64.b64encode(block.png).decode("ascii")
                width, height = (round(v / SCALE) for v in png_size(block.png))
                page.append(
                    f'<figure><img alt="{html.escape(block.caption)}" width="{width}" '
                    f'height="{height}" src="data:image/png;base64,{data}"><figcaption>'
                    f"{_inline_html(block.caption)}</figcaption></figure>"
                )
        if section.files:
            links = ", ".join(f"[`{name}`]({name})" for name in section.files)
            line = f"Files of this section, beside the report: {links}."
            md += [line, ""]
            page.append(_paragraph_html(line))
    md_path = folder / "report.md"
    html_path = folder / "report.html"
    md_path.write_text("\n".join(md).rstrip() + "\n", encoding="utf-8")
    html_path.write_text(
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>\n"
        + "\n".join(page)
        + "\n</body></html>\n",
        encoding="utf-8",
    )
    return md_path, html_path
