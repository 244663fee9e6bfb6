#!/usr/bin/env python3
"""Draws the results file of bench/run-all.sh (docs/benchmarks/results.json) as one SVG chart per
benchmark: the cost of each tool against the size of the content, in up to four panels (time per
GiB, peak RSS, bytes, throughput), one line per tool; a tool with a `size_mib` of its own (one
benchmark comparing tools on contents of different sizes) is placed at that size. Python's
standard library only.

  charts.py RESULTS OUTDIR [--page PAGE.md]

Writes OUTDIR/NAME.svg for every benchmark with at least one successful run that has figures to
draw, and removes no other file. With --page, the generated blocks of the Markdown page are
rewritten from the same results: the text between `<!-- results:NAME -->` and
`<!-- /results:NAME -->` becomes NAME's table and chart (left as it is while the results have no
run of NAME), and the block `<!-- results:others -->` lists every benchmark of the results that
has no block of its own (the benchmarks added after the page was written)."""
import json, math, os, re, sys
from xml.sax.saxutils import escape

# (key, panel title, unit label, value of one run's runner, or None)
def _per_gib(runner, run):
    wall, size = runner.get('wall_s'), runner.get('size_mib', run.get('size_mib'))
    return wall / (size / 1024) if isinstance(wall, (int, float)) and isinstance(size, (int, float)) and size > 0 else None

def _field(name, scale=1.0):
    def get(runner, run):
        value = runner.get(name)
        return value * scale if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    return get

PANELS = [
    ('time', 'Wall time per GiB of content', 's / GiB', _per_gib),
    ('rss', 'Peak RSS', 'MiB', _field('peak_rss_mib')),
    ('bytes', 'Bytes (written, fetched or served)', 'MB', _field('bytes', 1e-6)),
    ('throughput', 'Throughput', 'MB/s', _field('mb_s')),
]
COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf',
           '#7f7f7f', '#bcbd22', '#393b79', '#ad494a']
PANEL_W, PANEL_H = 300, 230
MARGIN_L, MARGIN_R, MARGIN_T, MARGIN_B = 62, 16, 28, 44


def successful_runs(entry):
    runs = [r for r in entry.get('runs', {}).values() if r.get('status') == 'ok' and isinstance(r.get('size_mib'), (int, float))]
    return sorted(runs, key=lambda r: r['size_mib'])


def size_label(mib):
    if mib >= 1024:
        gib = mib / 1024
        return f'{gib:g} GiB' if gib == int(gib) or gib >= 10 else f'{gib:.1f} GiB'
    return f'{mib:g} MiB'


def nice_ceiling(value):
    """The top of a y axis: the smallest 1, 2, 2.5 or 5 × 10^k at or above `value`."""
    if value <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if step * power >= value * (1 - 1e-9):
            return step * power
    return 10 * power


def tick_label(value):
    if value == 0:
        return '0'
    if abs(value) >= 1000:
        return f'{value:,.0f}'
    if abs(value) >= 10:
        return f'{value:g}'
    return f'{value:.3g}'


def series(entry, getter):
    """{runner: [(size_mib, value, carried over?)]} over the successful runs, runners in first-seen
    order."""
    lines = {}
    for run in successful_runs(entry):
        for name, runner in run.get('runners', {}).items():
            value = getter(runner, run)
            if value is not None and math.isfinite(value):
                size = runner.get('size_mib', run['size_mib'])
                lines.setdefault(name, []).append((size, value, bool(run.get('source'))))
    return lines


def chart(name, entry):
    """The SVG text of one benchmark's chart, or None when it has nothing to draw."""
    panels = [(key, title, unit, series(entry, getter)) for key, title, unit, getter in PANELS]
    panels = [p for p in panels if p[3]]
    if not panels:
        return None
    runners = []
    for _, _, _, lines in panels:
        runners += [r for r in lines if r not in runners]
    colour = {r: COLOURS[i % len(COLOURS)] for i, r in enumerate(runners)}
    sizes = sorted({p[0] for _, _, _, lines in panels for points in lines.values() for p in points})
    carried = any(p[2] for _, _, _, lines in panels for points in lines.values() for p in points)
    for _, _, _, lines in panels:
        for points in lines.values():
            points.sort()

    width = max(len(panels) * PANEL_W, 640)
    legend_columns = max(1, width // 250)
    legend_rows = math.ceil(len(runners) / legend_columns)
    legend_h = 18 * legend_rows + 8
    top = 48 + legend_h
    height = top + PANEL_H + 10
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           f'font-family="DejaVu Sans, Arial, sans-serif" font-size="11">',
           f'<title>{escape(name)}: cost against content size</title>',
           f'<rect class="background" x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
           f'<text class="heading" x="10" y="18" font-size="14" font-weight="bold">{escape(name)}</text>',
           f'<text class="compares" x="10" y="36" fill="#444444">{escape(entry.get("compares", ""))}</text>',
           '<g class="legend">']
    for i, runner in enumerate(runners):
        x = 10 + (i % legend_columns) * (width - 20) / legend_columns
        y = 48 + 18 * (i // legend_columns)
        out.append(f'<g class="legend-entry" data-runner="{escape(runner, {chr(34): "&quot;"})}">'
                   f'<line x1="{x:.1f}" y1="{y + 7}" x2="{x + 18:.1f}" y2="{y + 7}" stroke="{colour[runner]}" stroke-width="2.5"/>'
                   f'<circle cx="{x + 9:.1f}" cy="{y + 7}" r="3.5" fill="{colour[runner]}"/>'
                   f'<text x="{x + 24:.1f}" y="{y + 11}">{escape(runner)}</text></g>')
    out.append('</g>')
    if carried:
        out.append(f'<text class="note" x="{width - 10}" y="18" text-anchor="end" fill="#444444">'
                   'hollow points: carried over from an earlier run, not measured with the others</text>')

    panel_w = width / len(panels)
    for k, (key, title, unit, lines) in enumerate(panels):
        x0 = k * panel_w + MARGIN_L
        plot_w = panel_w - MARGIN_L - MARGIN_R
        y0 = top + MARGIN_T
        plot_h = PANEL_H - MARGIN_T - MARGIN_B
        if key == 'bytes' and max(p[1] for points in lines.values() for p in points) >= 10_000:
            unit, lines = 'GB', {r: [(s, v / 1000, c) for s, v, c in points] for r, points in lines.items()}
        top_value = nice_ceiling(max(p[1] for points in lines.values() for p in points) * 1.05)
        if len(sizes) == 1:
            sx = lambda s: x0 + plot_w / 2
        else:
            lo, hi = math.log2(sizes[0]), math.log2(sizes[-1])
            sx = lambda s: x0 + 12 + (math.log2(s) - lo) / (hi - lo) * (plot_w - 24)
        sy = lambda v: y0 + plot_h - v / top_value * plot_h
        out.append(f'<g class="panel" data-panel="{key}">')
        out.append(f'<text class="panel-title" x="{x0 + plot_w / 2:.1f}" y="{top + 14}" text-anchor="middle" font-weight="bold">{escape(title)}</text>')
        # y axis: five gridlines with values, the unit beside it
        out.append(f'<g class="axis y-axis" data-unit="{escape(unit)}">')
        for i in range(6):
            v = top_value * i / 5
            y = sy(v)
            out.append(f'<line x1="{x0:.1f}" y1="{y:.1f}" x2="{x0 + plot_w:.1f}" y2="{y:.1f}" stroke="#dddddd"/>')
            out.append(f'<text x="{x0 - 5:.1f}" y="{y + 4:.1f}" text-anchor="end">{tick_label(v)}</text>')
        out.append(f'<line x1="{x0:.1f}" y1="{y0}" x2="{x0:.1f}" y2="{y0 + plot_h}" stroke="#333333"/>')
        cy = y0 + plot_h / 2
        out.append(f'<text class="unit" x="{x0 - 48:.1f}" y="{cy:.1f}" text-anchor="middle" transform="rotate(-90 {x0 - 48:.1f} {cy:.1f})">{escape(unit)}</text>')
        out.append('</g>')
        # x axis: one tick per measured size, log scale
        out.append('<g class="axis x-axis" data-unit="content size">')
        out.append(f'<line x1="{x0:.1f}" y1="{y0 + plot_h}" x2="{x0 + plot_w:.1f}" y2="{y0 + plot_h}" stroke="#333333"/>')
        for s in sizes:
            x = sx(s)
            out.append(f'<line x1="{x:.1f}" y1="{y0 + plot_h}" x2="{x:.1f}" y2="{y0 + plot_h + 4}" stroke="#333333"/>')
            out.append(f'<text x="{x:.1f}" y="{y0 + plot_h + 16}" text-anchor="middle">{size_label(s)}</text>')
        out.append(f'<text class="unit" x="{x0 + plot_w / 2:.1f}" y="{y0 + plot_h + 34}" text-anchor="middle" fill="#444444">content size</text>')
        out.append('</g>')
        for runner, points in lines.items():
            coords = ' '.join(f'{sx(s):.1f},{sy(v):.1f}' for s, v, _ in points)
            out.append(f'<g class="series" data-runner="{escape(runner, {chr(34): "&quot;"})}">')
            if len(points) > 1:
                out.append(f'<polyline points="{coords}" fill="none" stroke="{colour[runner]}" stroke-width="2"/>')
            for s, v, c in points:
                fill = '#ffffff' if c else colour[runner]
                out.append(f'<circle cx="{sx(s):.1f}" cy="{sy(v):.1f}" r="3.5" fill="{fill}" stroke="{colour[runner]}" stroke-width="1.5">'
                           f'<title>{escape(runner)}: {tick_label(v)} {escape(unit)} at {size_label(s)}'
                           f'{" (carried over)" if c else ""}</title></circle>')
            out.append('</g>')
        out.append('</g>')
    out.append('</svg>')
    return '\n'.join(out) + '\n'


def number(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int) or abs(value) >= 1000:
        return f'{value:,.0f}'
    return f'{value:.4g}' if abs(value) < 10 else f'{value:.1f}'


def table(name, entry, chart_path):
    """The Markdown of one benchmark's generated block: per size, each tool's figures, the run's
    other figures, and the chart."""
    lines = []
    for run in successful_runs(entry) + [r for r in entry.get('runs', {}).values() if r.get('status') != 'ok']:
        size = size_label(run['size_mib']) if isinstance(run.get('size_mib'), (int, float)) else '?'
        if run.get('status') != 'ok':
            lines += [f'{size}: **{run.get("status")}** (`{run.get("command", "")}`)', '']
            continue
        head = f'{size}, `{run.get("command", "")}`'
        if run.get('source'):
            head += f' ({run["source"]})'
        elif isinstance(run.get('load'), list) and run['load']:
            head += f' (one run; load average {run["load"][0]:g} at its start)'
        lines += [head + ':', '']
        columns = [c for c in ('size_mib', 'wall_s', 'cpu_s', 'user_s', 'peak_rss_mib', 'disk_peak_mib', 'bytes', 'delta_bytes', 'chunks', 'req_s', 'mb_s')
                   if any(c in r for r in run.get('runners', {}).values())]
        titles = {'size_mib': 'content MiB', 'wall_s': 'wall s', 'cpu_s': 'CPU s', 'user_s': 'of it user s', 'peak_rss_mib': 'peak RSS MiB', 'disk_peak_mib': 'disk at peak MiB', 'bytes': 'bytes',
                  'delta_bytes': 'delta bytes', 'chunks': 'chunks', 'req_s': 'req/s', 'mb_s': 'MB/s'}
        if columns:
            lines.append('| tool | ' + ' | '.join(titles[c] for c in columns) + ' |')
            lines.append('|---|' + '---:|' * len(columns))
            for tool, figures in run['runners'].items():
                lines.append(f'| {tool} | ' + ' | '.join(number(figures[c]) if c in figures else '' for c in columns) + ' |')
            lines.append('')
        figures = run.get('figures', {})
        if figures:
            lines.append('| figure | value |')
            lines.append('|---|---:|')
            for key, value in figures.items():
                lines.append(f'| {key} | {number(value)} |')
            lines.append('')
    if chart_path:
        lines += [f'![{name}: cost against content size]({chart_path})', '']
    return '\n'.join(lines)


BLOCK = re.compile(r'(<!-- results:([\w.-]+) -->\n)(.*?)(<!-- /results:\2 -->)', re.S)


def fill_page(page_path, data, charts):
    with open(page_path) as f:
        text = f.read()
    page_dir = os.path.dirname(os.path.abspath(page_path))
    named = set(m.group(2) for m in BLOCK.finditer(text))
    benchmarks = data['benchmarks']

    def block(match):
        start, name, old, end = match.groups()
        rel = lambda n: os.path.relpath(charts[n], page_dir) if n in charts else None
        if name == 'others':
            rest = sorted(n for n in benchmarks if n not in named and benchmarks[n].get('runs'))
            if not rest:
                return match.group(0)
            body = '\n'.join(f'#### {n}\n\n{benchmarks[n].get("compares", "")}\n\n' + table(n, benchmarks[n], rel(n)) for n in rest)
            return start + body + end
        if name not in benchmarks or not benchmarks[name].get('runs'):
            return match.group(0)
        return start + table(name, benchmarks[name], rel(name)) + end

    new = BLOCK.sub(block, text)
    if new != text:
        temporary = f'{page_path}.{os.getpid()}.tmp'
        with open(temporary, 'w') as f:
            f.write(new)
        os.replace(temporary, page_path)


def main(args):
    page = None
    if '--page' in args:
        i = args.index('--page')
        if i + 1 >= len(args):
            sys.exit(__doc__)
        page = args[i + 1]
        args = args[:i] + args[i + 2:]
    if len(args) != 2:
        sys.exit(__doc__)
    results, outdir = args
    try:
        with open(results) as f:
            data = json.load(f)
    except (OSError, ValueError) as error:
        sys.exit(f'charts.py: cannot read {results}: {error}')
    if not isinstance(data, dict) or not isinstance(data.get('benchmarks'), dict):
        sys.exit(f'charts.py: {results} has no "benchmarks" object')
    os.makedirs(outdir, exist_ok=True)
    charts = {}
    for name, entry in sorted(data['benchmarks'].items()):
        if not re.fullmatch(r'[\w.-]+', name):
            sys.exit(f'charts.py: benchmark name {name!r} in {results} is not a file name')
        svg = chart(name, entry)
        if svg is None:
            continue
        path = os.path.join(outdir, f'{name}.svg')
        with open(path + '.tmp', 'w') as f:
            f.write(svg)
        os.replace(path + '.tmp', path)
        charts[name] = path
    if page:
        fill_page(page, data, charts)
    print(f'charts.py: {len(charts)} charts in {outdir}' + (f'; {page} updated' if page else ''))


if __name__ == '__main__':
    main(sys.argv[1:])
