"""Plotly figures as plain JSON-able dicts (no plotly import needed at request time).

Every string that comes from a trace (query names, SQL descriptions, host and stage names) goes
through ``esc``: Plotly renders a subset of HTML in labels and hover text, so such strings are
HTML-escaped (Plotly shows the entities as the original characters). The templates embed a figure
with ``|tojson`` (``tojson`` here) inside ``<script type="application/json">``, which escapes ``<``,
``>``, ``&`` and ``'``.
"""
from __future__ import annotations

import bisect
import html
import os
from collections import Counter

import orjson
from markupsafe import Markup

from protoxplore import show

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf"]


def esc(value, limit: int = 80) -> str:
    """A label for a chart: ``value`` cut as tables cut it (:func:`show.short`), HTML-escaped."""
    return html.escape(show.short(value, limit), quote=True)


def num(value) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return 0.0
    return v if v == v and abs(v) != float("inf") else 0.0


def tojson(figure: dict) -> Markup:
    """``figure`` as JSON safe inside ``<script>``, escaped as Flask's ``tojson`` does; by orjson, which
    takes a tenth of the time of the json module (2.7 ms of an overview page of 9 ms at paper scale)."""
    text = orjson.dumps(figure, option=orjson.OPT_SERIALIZE_NUMPY).decode()
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace("'", "\\u0027"))


def _layout(title: str, **extra) -> dict:
    layout = {"title": {"text": esc(title, 120), "font": {"size": 14}}, "margin": {"l": 60, "r": 20, "t": 40, "b": 40},
              "height": 320, "template": None, "hovermode": "closest"}
    layout.update(extra)
    return layout


def ranked_labels(rows: list[dict], label: str, limit: int = 40) -> list[str]:
    """The y labels of a ranked bar chart: "1. NAME", each name cut in the middle to ``limit``
    characters (a victim stage's "APP:sql-0 stage 12" keeps its stage number; cut at the end, every
    stage of a long-named query read alike), from where they differ when that still reads alike
    (:func:`from_difference`); HTML-escaped."""
    names = ["" if r.get(label) is None else str(r.get(label)) for r in rows]
    cut = [middle(name, limit) for name in names]
    if len(set(cut)) < len(cut):
        cut = from_difference(names, limit)
    return [f"{i + 1}. {html.escape(name, quote=True)}" for i, name in enumerate(cut)]


def bar(rows: list[dict], label: str, value: str, title: str, value_title: str, hover: list[str] = ()) -> dict:
    """A horizontal bar chart, largest on top."""
    rows = list(rows)[:25]
    labels = ranked_labels(rows, label)
    texts = ["<br>".join(f"{h}: {esc(r.get(h), 100)}" for h in hover) for r in rows]
    fig = {"data": [{"type": "bar", "orientation": "h", "y": labels[::-1], "x": [num(r.get(value)) for r in rows][::-1],
                     "text": texts[::-1], "textposition": "none",
                     "hovertemplate": "%{y}: %{x:.3g}<br>%{text}<extra></extra>",
                     "marker": {"color": PALETTE[0]}}],
           "layout": _layout(title, xaxis={"title": {"text": esc(value_title)}}, yaxis={"automargin": True},
                             height=max(220, 60 + 24 * len(rows)))}
    return fig


def dor_blame(rows: list[dict], title: str, label: str = "name") -> dict:
    """DOR and blocked seconds of ranked nodes, side by side on a shared axis of names."""
    rows = list(rows)[:25]
    labels = ranked_labels(rows, label)[::-1]
    return {
        "data": [
            {"type": "bar", "orientation": "h", "name": "DOR", "y": labels, "x": [num(r.get("dor")) for r in rows][::-1],
             "xaxis": "x", "marker": {"color": PALETTE[0]}, "hovertemplate": "%{y}<br>DOR %{x:.3f}<extra></extra>"},
            {"type": "bar", "orientation": "h", "name": "blocked s", "y": labels,
             "x": [num(r.get("blame_s")) for r in rows][::-1], "xaxis": "x2", "marker": {"color": PALETTE[1]},
             "hovertemplate": "%{y}<br>%{x:.1f} s blocked<extra></extra>"},
        ],
        "layout": _layout(title, height=max(220, 70 + 26 * len(rows)), showlegend=False,
                          xaxis={"domain": [0, 0.47], "title": {"text": "degree of responsibility"}},
                          xaxis2={"domain": [0.53, 1], "title": {"text": "blocked seconds"}, "anchor": "y"},
                          yaxis={"automargin": True}),
    }


class TimeAxis:
    """Seconds since the trace start, with long idle gaps cut out, so that a workload whose logs span
    months or years still shows each query: a gap longer than ``cut`` seconds (a tenth of the busy
    time, at least a minute) in which no query ran is drawn ``cut`` seconds wide and marked."""

    def __init__(self, rows: list[dict], origin: float):
        spans = sorted((num(r.get("start_time")) - origin, num(r.get("end_time")) - origin) for r in rows)
        merged: list[list[float]] = []
        for start, end in spans:
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        busy = sum(end - start for start, end in merged)
        self.cut = max(busy / 10, 60.0)
        self.shifts: list[tuple[float, float]] = [(merged[0][0] if merged else 0.0, 0.0)]  # (from real t, minus)
        self.gaps: list[tuple[float, float]] = []  # (axis position, real seconds cut out)
        for (_, before), (after, _) in zip(merged, merged[1:]):
            if after - before > self.cut:
                removed = self.shifts[-1][1] + (after - before - self.cut)
                self.shifts.append((after, removed))
                self.gaps.append((before - self.shifts[-2][1] + self.cut / 2, after - before))
        self.shifts[0] = (float("-inf"), 0.0)
        self._starts = [start for start, _ in self.shifts]
        self.width = (merged[-1][1] - merged[0][0] - self.shifts[-1][1]) if merged else 0.0  # of the axis, in s

    def __call__(self, t: float) -> float:
        # the last shift starting at or before t (starts ascend): a bisection, called once per bar and step
        return t - self.shifts[bisect.bisect_right(self._starts, t) - 1][1]

    def layout(self, **extra) -> dict:
        """Axis title, and a dotted line with the length of each cut gap."""
        title = "seconds since the trace start" + (f" (idle gaps over {self.cut:,.0f} s cut, dotted)" if self.gaps else "")
        shapes = [{"type": "line", "x0": x, "x1": x, "y0": 0, "y1": 1, "yref": "paper",
                   "line": {"dash": "dot", "color": "#888"}} for x, _ in self.gaps]
        # Gaps close together on the axis (short busy spells between long idle ones) would print their
        # lengths over each other ("245.5 days idl519.1 days idle"): a label nearer than a tenth of the
        # axis to the last one on its line goes up a line (three lines, then round again).
        notes, last = [], [float("-inf")] * 3
        for x, seconds in self.gaps:
            line = next((k for k in range(3) if x - last[k] >= self.width / 10), len(notes) % 3)
            last[line] = x
            notes.append({"x": x, "y": 1, "yref": "paper", "text": _duration(seconds) + " idle", "showarrow": False,
                          "yanchor": "bottom", "yshift": 12 * line, "font": {"size": 10, "color": "#666"}})
        return {"xaxis": {"title": {"text": title}, **extra}, "shapes": shapes, "annotations": notes}


def _duration(seconds: float) -> str:
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:,.1f} {unit}"
    return f"{seconds:,.0f} s"


def timeline(rows: list[dict], origin: float) -> dict:
    """Queries as bars over time (seconds from the trace start, long idle gaps cut), one colour per query."""
    rows = sorted(rows, key=lambda r: (num(r.get("start_time")), str(r.get("name"))))
    axis = TimeAxis(rows, origin)
    data, names = [], []
    repeated = show.names_repeat(rows)  # then each row says its application, as the tables do
    apps = sorted({str(r.get("app_key")) for r in rows})
    cut = [middle(app, 30) for app in apps]  # ids cut alike in the middle are cut from where they differ
    app_label = dict(zip(apps, cut if len(set(cut)) == len(cut) else from_difference(apps, 30)))
    for i, r in enumerate(rows):
        start, end = num(r.get("start_time")) - origin, num(r.get("end_time")) - origin
        left, name = axis(start), esc(r.get("name"), 40)
        names.append(f"{name} ({esc(app_label[str(r.get('app_key'))], 31)})" if repeated else name)
        # A row per query (applications of one name give queries of one name: each keeps its row),
        # labelled with its name; the hover says when it started, as a time of day.
        data.append({"type": "bar", "orientation": "h", "base": [left], "x": [max(axis(end) - left, 0.0)],
                     "y": [f"q{i}"], "name": name,
                     "marker": {"color": PALETTE[i % len(PALETTE)]}, "text": [esc(r.get("description"), 100)],
                     "customdata": [[show.when(r.get("start_time")), end - start, esc(r.get("name"), 120),
                                     esc(r.get("app_key"), 120)]],
                     "hovertemplate": "%{customdata[2]} (application %{customdata[3]}): started %{customdata[0]}, "
                                      "ran %{customdata[1]:.4~r} s<br>%{text}<extra></extra>",
                     "textposition": "none"})
    return {"data": data, "layout": _layout("Queries over time", showlegend=False, barmode="overlay",
                                            yaxis={"automargin": True, "autorange": "reversed", "tickmode": "array",
                                                   "tickvals": [f"q{i}" for i in range(len(rows))], "ticktext": names},
                                            height=max(220, 80 + 22 * len(rows)), **axis.layout())}


def concurrency(rows: list[dict], origin: float) -> dict:
    """How many queries ran at once, as a step line (on the timeline's axis)."""
    axis = TimeAxis(rows, origin)
    events = []
    for r in rows:
        if r.get("start_time") is None or r.get("end_time") is None:
            continue
        events.append((num(r["start_time"]) - origin, 1))
        events.append((num(r["end_time"]) - origin, -1))
    events.sort(key=lambda e: (e[0], e[1]))
    xs, ys, running = [min(0.0, axis(events[0][0])) if events else 0.0], [0], 0
    for t, delta in events:
        running += delta
        xs.append(axis(t))
        ys.append(running)
    return {"data": [{"type": "scatter", "mode": "lines", "line": {"shape": "hv", "color": PALETTE[2]}, "x": xs, "y": ys,
                      "hovertemplate": "%{y} queries<extra></extra>", "name": "running"}],
            "layout": _layout("Concurrent queries", yaxis={"title": {"text": "queries running"}, "rangemode": "tozero",
                                                           # a count: whole ticks (it showed 0.5 at one query)
                                                           "tickformat": "d", "dtick": max(1, -(-max(ys) // 5))},
                              height=240, **axis.layout())}


# The Sankey is drawn at a fixed width, so that its labels can be cut to the room between columns.
SANKEY_WIDTH, SANKEY_NODE, SANKEY_PAD = 1150, 14, 18  # px; the pad exceeds a label's line height (12 px font)
CHAR_PX = 7  # the widest average character of Plotly's 12 px sans-serif label font, rounded up
LABEL_GAP = 6  # px between a node and its label, and kept free between two labels


def middle(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters in the middle, so that its end (a stage number, a host)
    still tells apart names that start alike."""
    if len(text) <= limit:
        return text
    head = (limit - 1) // 2
    return text[:head] + "\u2026" + text[len(text) - (limit - 1 - head):]


def from_difference(names: list[str], limit: int) -> list[str]:
    """Labels of ``limit`` characters for names a middle cut makes read alike: each starts a few
    characters before where the names begin to differ ("…stage 1 slots@node-1" and "…stage 2
    slots@node-1", not "sql-1 sta…ts@node-1" twice)."""
    common = len(os.path.commonprefix(names))
    near = max(common - 6, 0)
    # At a word, but near enough that the middle cut of the rest keeps where they differ (its head).
    start = next((i for i in range(near, max(common - (limit - 2) // 2, 0), -1) if names[0][i - 1] in " :/@._-"),
                 near)
    return [middle(name, limit) if start == 0 else "\u2026" + middle(name[start:], limit - 1) for name in names]


def _shared_application(paths: list[dict]) -> str:
    """What the Sankey's labels leave out when they do not fit: the name of the one application of
    its queries (``APP:`` of ``APP:sql-1``), or the start its applications' names share, up to a
    ``-``, ``_`` or space (``protoxplore-cross_app-`` of ``...-main`` and ``...-other``)."""
    queries = [str(name) for p in paths if p.get("names") for name in (p["names"][0], p["names"][-1])]  # culprit, victim
    apps = {name.rsplit(":", 1)[0] for name in queries if ":" in name}
    if len(apps) == 1:
        return apps.pop() + ":"
    start = os.path.commonprefix(list(apps))
    return start[:max(start.rfind(c) for c in "-_ ") + 1]


def sankey(paths: list[dict]) -> dict:
    """The top-k weighted paths: culprit query -> ... -> victim, link widths = path weight.

    Labels leave out the application name all share (:func:`_shared_application`), are cut to
    the gap between columns, from where they differ when two nodes of a column would read the same
    (:func:`from_difference`), and numbered when they still would; full
    names are in the hover text. The victim is named in the title, not on its node: Plotly
    puts the last column's label left of its node, in the gap the column before needs. The node pad
    exceeds a label's height, so labels of one column never stack; a flow under 1% of the largest is
    drawn at 1% (its hover gives the real weight)."""
    columns = max(len(p.get("uids") or []) for p in paths) if paths else 1
    gap = (SANKEY_WIDTH - 20 - SANKEY_NODE) / max(columns - 1, 1) - SANKEY_NODE
    room = int((gap - 2 * LABEL_GAP) // CHAR_PX)
    victim = str((paths[0].get("names") or [""])[-1]) if paths else ""
    index: dict[str, int] = {}
    column: list[int] = []
    names: list[str] = []
    links: dict[tuple[int, int], float] = {}
    for p in paths:
        uids, path_names = p.get("uids") or [], list(p.get("names") or [])
        if p.get("self") and path_names:  # the victim's own query, as the walk and the tables say
            path_names[0] = show.culprit_name({"name": path_names[0], "self": True})
        for position, (uid, name) in enumerate(zip(uids, path_names)):
            if uid not in index:
                index[uid] = len(names)
                names.append(str(name))
                column.append(columns - len(uids) + position)  # counted from the victim, on the right
        for a, b in zip(uids, uids[1:]):
            key = (index[a], index[b])
            links[key] = links.get(key, 0.0) + num(p.get("weight"))
    shared = _shared_application(paths) if max(map(len, names), default=0) > room else ""
    shown = [name.replace(shared, "", 1) if shared else name for name in names]
    labels = ["" if col == columns - 1 else middle(name, room) for name, col in zip(shown, column)]
    alike: dict[tuple, list[int]] = {}
    for i, key in enumerate(zip(column, labels)):
        alike.setdefault(key, []).append(i)
    for group in (g for g in alike.values() if len(g) > 1):  # distinct nodes that would read the same
        for i, label in zip(group, from_difference([shown[i] for i in group], room)):
            labels[i] = label
    same = Counter(zip(column, labels))
    numbered: Counter = Counter()
    # Still alike: numbered within their column in the order of their full names, so that a host cut
    # alike in two columns has one number in both (host-1 #1 and host-2 #2 there and here).
    for i in sorted(range(len(labels)), key=lambda i: shown[i]):
        key = (column[i], labels[i])
        if same[key] > 1:
            numbered[key] += 1
            number = f" #{numbered[key]}"
            labels[i] = middle(shown[i], room - len(number)) + number
    per_column = max(column.count(c) for c in set(column)) if column else 1
    floor = max(links.values(), default=0.0) / 100
    return {"data": [{"type": "sankey", "arrangement": "snap",
                      "node": {"label": [esc(label, 200) for label in labels], "pad": SANKEY_PAD,
                               "thickness": SANKEY_NODE, "customdata": [esc(name, 200) for name in names],
                               "hovertemplate": "%{customdata}<extra></extra>"},
                      "link": {"source": [k[0] for k in links], "target": [k[1] for k in links],
                               "value": [max(v, floor, 1e-9) for v in links.values()],
                               "customdata": list(links.values()),
                               "hovertemplate": "weight %{customdata:.3g}<extra></extra>"}}],
            "layout": _layout(f"Top weighted paths (culprit query on the left, victim {victim} on the right)",
                              width=SANKEY_WIDTH, margin={"l": 10, "r": 10, "t": 40, "b": 20},
                              height=max(380, 60 + per_column * (SANKEY_PAD + 24)))}


def heatmap(rows: list[dict]) -> dict:
    """Blocked seconds by host (rows) and resource (columns), DOR in the hover text."""
    hosts = sorted({str(r.get("host")) for r in rows})
    resources = sorted({str(r.get("resource")) for r in rows})
    z = [[0.0] * len(resources) for _ in hosts]
    text = [[""] * len(resources) for _ in hosts]
    for r in rows:
        i, j = hosts.index(str(r.get("host"))), resources.index(str(r.get("resource")))
        z[i][j] += num(r.get("blame_s"))
        text[i][j] = f"DOR {num(r.get('dor')):.3f}"
    return {"data": [{"type": "heatmap", "z": z, "x": [esc(x) for x in resources], "y": [esc(h) for h in hosts],
                      "text": text, "colorscale": "YlOrRd", "reversescale": True, "colorbar": {"title": {"text": "blocked s"}},
                      "zmin": 0.0,  # one cell alone was drawn mid-scale (0.021 s on a scale from -0.5 to 0.5)
                      "hovertemplate": "%{y} / %{x}: %{z:.4~r} s blocked, %{text}<extra></extra>"}],
            "layout": _layout("Blocked seconds by host and resource", yaxis={"automargin": True},
                              height=max(220, 100 + 30 * len(hosts)))}


def stacked_windows(windows: list[dict], culprits: list[str]) -> dict:
    """DOR of the top culprits per time window (``axis``: its seconds since the trace start), stacked."""
    data = []
    for i, name in enumerate(culprits):
        data.append({"type": "bar", "name": esc(name, 40), "x": [esc(w["axis"]) for w in windows],
                     "y": [num(w["dor"].get(name)) for w in windows], "marker": {"color": PALETTE[i % len(PALETTE)]},
                     "hovertemplate": "%{x}<br>" + esc(name, 40) + ": DOR %{y:.3f}<extra></extra>"})
    return {"data": data, "layout": _layout("DOR of the top culprits per time window", barmode="stack",
                                            xaxis={"title": {"text": "window (seconds since the trace start)"}},
                                            yaxis={"title": {"text": "degree of responsibility"}}, height=360)}

