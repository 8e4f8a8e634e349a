"""Charts for the console, drawn on the server as SVG: no script, nothing to load.

`chart` draws one chart of several series over the same labels (nights, days): `lines`,
`bars` (stacked) or `area` (stacked). Each point carries a <title> a browser shows on hover
("2026-11-29 · tentative: 12"); the SVG is an image with the chart's title as its name. Every
text is escaped (labels and series come from Redis, whose values people's requests wrote).
Colours come from the stylesheet: series `name` is drawn with class `s-<name>`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from markupsafe import Markup

Kind = Literal["lines", "bars", "area"]
Series = tuple[str, Sequence[float]]  # (name, one value per label)

WIDTH, HEIGHT = 640, 180
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 10, 26


def chart(title: str, labels: Sequence[str], series: Sequence[Series], kind: Kind) -> Markup:
    """One chart, or a line saying there is nothing to draw yet."""
    if not labels or not series:
        return Markup('<p class="empty">{}: nothing recorded yet.</p>').format(title)
    stacked = kind != "lines"
    top = _nice(_highest(series, stacked))
    plot = _Plot(len(labels), top, bands=kind == "bars")
    parts = [_axes(plot, labels)]
    if kind == "area":
        parts += _areas(plot, labels, series)
    elif kind == "bars":
        parts += _bars(plot, labels, series)
    else:
        parts += _lines(plot, labels, series)
    head = Markup(
        '<svg class="chart {}" viewBox="0 0 {} {}" role="img" aria-label="{}" '
        'xmlns="http://www.w3.org/2000/svg"><title>{}</title>'
    ).format(kind, WIDTH, HEIGHT, title, title)
    return head + Markup("").join(parts) + Markup("</svg>")


class _Plot:
    """Where a label's point and a value's height fall in the drawing."""

    def __init__(self, n: int, top: float, *, bands: bool) -> None:
        self.n, self.top, self.bands = n, top, bands
        self.w, self.h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(self, i: int) -> float:
        if self.bands:
            return LEFT + self.w * (i + 0.5) / self.n
        return LEFT + (self.w * i / (self.n - 1) if self.n > 1 else self.w / 2)

    def y(self, value: float) -> float:
        return TOP + self.h * (1 - value / self.top)

    @property
    def band(self) -> float:
        return self.w / self.n * 0.7


def _highest(series: Sequence[Series], stacked: bool) -> float:
    columns = list(zip(*(values for _, values in series), strict=True))
    return float(max((sum(c) if stacked else max(c)) for c in columns)) if columns else 0.0


def _nice(value: float) -> float:
    """A round number at or above `value` (at least 1): 9.2 → 10, 230 → 250, 68019 → 70000."""
    if value <= 1:
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    return next(m * power for m in (1, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 10) if m * power >= value)


def _number(value: float) -> str:
    return f"{value:,.0f}" if value >= 10 or value == int(value) else f"{value:.1f}"


def _axes(plot: _Plot, labels: Sequence[str]) -> Markup:
    out = []
    for value in (0, plot.top / 2, plot.top):
        y = plot.y(value)
        out.append(
            Markup('<line class="grid" x1="{}" y1="{:.1f}" x2="{}" y2="{:.1f}"/>').format(
                LEFT, y, WIDTH - RIGHT, y
            )
        )
        out.append(
            Markup('<text class="tick" x="{}" y="{:.1f}" text-anchor="end">{}</text>').format(
                LEFT - 4, y + 4, _number(value)
            )
        )
    last = len(labels) - 1
    for i in sorted({0, last // 2, last}):  # the ends anchored inside the drawing
        anchor = "middle" if 0 < i < last or last == 0 else ("start" if i == 0 else "end")
        x = plot.x(i) if anchor == "middle" else (LEFT if i == 0 else WIDTH - RIGHT)
        out.append(
            Markup('<text class="tick" x="{:.1f}" y="{}" text-anchor="{}">{}</text>').format(
                x, HEIGHT - 8, anchor, labels[i]
            )
        )
    return Markup("").join(out)


def _point(label: str, name: str, value: float) -> Markup:
    return Markup("<title>{} · {}: {}</title>").format(label, name, _number(value))


def _lines(plot: _Plot, labels: Sequence[str], series: Sequence[Series]) -> list[Markup]:
    out = []
    for name, values in series:
        points = " ".join(f"{plot.x(i):.1f},{plot.y(v):.1f}" for i, v in enumerate(values))
        dots = Markup("").join(
            Markup('<circle cx="{:.1f}" cy="{:.1f}" r="3">{}</circle>').format(
                plot.x(i), plot.y(v), _point(labels[i], name, v)
            )
            for i, v in enumerate(values)
        )
        out.append(
            Markup('<g class="series s-{}"><polyline points="{}"/>{}</g>').format(
                name, points, dots
            )
        )
    return out


def _bars(plot: _Plot, labels: Sequence[str], series: Sequence[Series]) -> list[Markup]:
    out, base = [], [0.0] * len(labels)
    for name, values in series:
        rects = [
            _rect(plot, i, base[i], v, _point(labels[i], name, v))
            for i, v in enumerate(values)
            if v
        ]
        base = [b + v for b, v in zip(base, values, strict=True)]
        out.append(Markup('<g class="series s-{}">{}</g>').format(name, Markup("").join(rects)))
    return out


def _rect(plot: _Plot, i: int, below: float, value: float, title: Markup) -> Markup:
    y0, y1 = plot.y(below), plot.y(below + value)
    x = plot.x(i) - plot.band / 2
    return Markup('<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}">{}</rect>').format(
        x, y1, plot.band, y0 - y1, title
    )


def _areas(plot: _Plot, labels: Sequence[str], series: Sequence[Series]) -> list[Markup]:
    out, base = [], [0.0] * len(labels)
    for name, values in series:
        top = [b + v for b, v in zip(base, values, strict=True)]
        edge = [f"{plot.x(i):.1f},{plot.y(t):.1f}" for i, t in enumerate(top)]
        floor = [f"{plot.x(i):.1f},{plot.y(b):.1f}" for i, b in reversed(list(enumerate(base)))]
        dots = Markup("").join(
            Markup('<circle cx="{:.1f}" cy="{:.1f}" r="2.5">{}</circle>').format(
                plot.x(i), plot.y(t), _point(labels[i], name, values[i])
            )
            for i, t in enumerate(top)
        )
        out.append(
            Markup('<g class="series s-{}"><polygon points="{}"/>{}</g>').format(
                name, " ".join(edge + floor), dots
            )
        )
        base = top
    return out
