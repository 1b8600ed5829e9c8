"""An Altair chart drawn on the server as SVG (Vega's own SVG renderer, through vl-convert), shown as an image, for a
chart a page must show at once: the browser then shows a picture instead of loading and starting Vega (about 0.8 s of
a visit on this machine, benchmarks/README.md), and an image rather than inline SVG, which would go through Markdown
(st.html's sanitizer drops SVG) and put thousands of nodes in the page (about 0.4 s more of a first visit, with the
table's grid: benchmarks/HISTORY.md).

What a static chart gives up against st.altair_chart: it does not stretch to its column (it is drawn at a width and
shrinks, never grows), has no Vega menu, and its marks say nothing on hover (an image); a page that draws one gives
its figures another way (a table) and describes the chart in the image's alternative text.

vl-convert holds Python's GIL while it works: starting its engine stops the server's other threads for about
0.75 s (once per process), and each drawing for 70-150 ms. A page therefore caches what it draws (the fairness
chart: once per tokenizers, languages, theme and type size for the server), and a starting engine overlaps only
with work in other processes (a training's worker).
"""

from __future__ import annotations

import html
import re
import threading

from .charts import spec, text_colour

# The grid and axis lines of each theme, and the page's font (an image cannot use the page's web fonts: a system's
# Source Sans when it has one, else its sans-serif; nothing fetched); the text in Streamlit's own colour
# (charts.text_colour).
THEMES = {False: {"grid": "#E6E6E6", "domain": "#888888"}, True: {"grid": "#3A3D45", "domain": "#9A9A9A"}}
FONT = '"Source Sans", "Source Sans Pro", sans-serif'


def config(dark: bool) -> dict:
    """Vega-Lite config for a chart on the page's background: transparent, the theme's text and grid colours."""
    colours, text = THEMES[dark], text_colour(dark)
    axis = {"labelColor": text, "titleColor": text, "gridColor": colours["grid"],
            "domainColor": colours["domain"], "tickColor": colours["domain"], "labelFont": FONT, "titleFont": FONT}
    return {"background": None, "font": FONT, "axis": axis, "view": {"stroke": colours["grid"]},
            "legend": {"labelColor": text, "titleColor": text, "labelFont": FONT}}


_TAG = re.compile(r"<[^<>]*>")  # a tag of Vega's SVG (a text's < and > are escaped: a tag never starts in one)
_LABEL = re.compile(r' aria-(?:label|roledescription)="[^"]*"')  # what a screen reader would read of a mark
_POINT = re.compile(r'<path\b[^<>]*? aria-roledescription="point"')
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def drawable(text: str) -> str:
    """`text` as the SVG engine can draw it: each character XML does not allow (a control character, U+FFFE, a lone
    surrogate: a file's name may hold one) as U+FFFD. vl-convert's text measuring panics on them, which ends the
    whole server process: no exception to catch."""
    return _NOT_XML.sub("\ufffd", text)
_GEOMETRY = re.compile(r'( (?:d|transform|x|y|x1|x2|y1|y2|width|height)=")([^"]*)"')  # attributes of coordinates
_LONG = re.compile(r"(\d\.\d\d)\d+")  # a coordinate's digits past the hundredths (Vega writes 12.000000000000018)


def unlabelled(svg: str) -> str:
    """Vega's SVG without its marks' labels for screen readers: inside an image nobody reads them (the image's
    alternative text says what the chart shows), and they were a quarter of its text."""
    return _TAG.sub(lambda tag: _LABEL.sub("", tag[0]), svg)  # (in tags only: a name in a text stays as it is)


def points(svg: str) -> int:
    """How many point marks Vega's SVG draws (before `unlabelled`)."""
    return len(_POINT.findall(svg))


def compact(svg: str) -> str:
    """The SVG with its coordinates cut to hundredths of a pixel (a fifth of the chart's text was digits no screen
    shows; a text, such as a file's name in a title, is left as it is) and the page's font named once, on the
    drawing, for every text in it: less for the page to send and the browser to parse."""
    font = ' font-family="' + html.escape(FONT) + '"'
    if font in svg:
        svg = svg.replace(font, "").replace("<svg ", "<svg" + font + " ", 1)
    return _GEOMETRY.sub(lambda m: m.group(1) + _LONG.sub(r"\1", m.group(2)) + '"', svg)  # (never a text's)


def to_svg(chart_spec: dict) -> str:
    """A Vega-Lite dict as SVG text: no data or font is fetched (inline data only), coordinates to a hundredth."""
    import vl_convert

    return compact(vl_convert.vegalite_to_svg(chart_spec, allowed_base_urls=[]))


_SIZE = re.compile(r'<svg[^>]*? width="([\d.]+)" height="([\d.]+)"')


def image(svg: str, alt: str, css_class: str) -> str:
    """`svg` as an HTML image (a data address: nothing fetched, nothing run: an image's SVG runs no script), its
    size given so the page keeps its room before it is decoded, `alt` its text for a screen reader (escaped)."""
    import base64

    size = _SIZE.search(svg)
    width_height = f' width="{size[1]}" height="{size[2]}"' if size else ""
    data = base64.b64encode(unlabelled(svg).encode()).decode()
    return (f'<img class="{css_class}" alt="{html.escape(alt)}"{width_height} '
            f'src="data:image/svg+xml;base64,{data}">')


def chart_svg(chart, dark: bool) -> str:  # chart: an Altair chart
    """An Altair chart as SVG text in the page's theme."""
    made = spec(chart)
    made["config"] = _merged(config(dark), made.get("config", {}))
    return to_svg(made)


def _merged(base: dict, over: dict) -> dict:
    """`base` with `over`'s settings on top, key by key inside nested settings."""
    out = dict(base)
    for key, value in over.items():
        out[key] = _merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


_started = threading.Lock()
_STARTED: list[threading.Thread] = []


def start_engine() -> None:
    """Start vl-convert's engine (about 1 s, once per process) in the background, so that a page's first chart does
    not wait for it while the page computes its data."""
    with _started:
        if _STARTED:
            return
        thread = threading.Thread(target=lambda: to_svg({"mark": "point", "data": {"values": [{}]}}),
                                  name="vl-convert start", daemon=True)
        _STARTED.append(thread)
        thread.start()
