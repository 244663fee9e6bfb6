#!/usr/bin/env python3
"""The machine-readable line a benchmark prints beside its human text: `@result {JSON}`.

One object per line, with any of
  "runners": {NAME: {"wall_s", "cpu_s", "peak_rss_mib", "bytes", "mb_s", ...}}   per tool compared
                                                     ("size_mib" too, where its content differs)
  "figures": {KEY: number or string}                                             ratios, targets met
  "size_mib": number                                                             the content measured
  "point": number                     these figures belong to the content of that many MiB (below)
bench/run-all.sh collects every such line of a benchmark's output and merges them (later keys win)
into bench/out/results.json; bench/charts.py draws the runners' figures against size_mib.
A benchmark that sweeps several sizes in one run (bench/large.sh) sets BENCH_POINT=SIZE_MIB in the
environment while it measures one size: every line printed then carries "point", and
bench/collect.py records the lines of each point as a run of that size of their own.

From a shell script:  python3 bench/result.py [--runner NAME] KEY=VALUE...
From Python:          result.emit(runners={...}, figures={...})
Values that read as numbers are stored as numbers."""
import json, os, sys

PREFIX = '@result '


def emit(runners=None, figures=None, size_mib=None, out=sys.stdout):
    line = {}
    if runners:
        line['runners'] = runners
    if figures:
        line['figures'] = figures
    if size_mib is not None:
        line['size_mib'] = size_mib
    point = os.environ.get('BENCH_POINT')
    if point:
        line['point'] = value(point)
    print(PREFIX + json.dumps(line, sort_keys=True), file=out, flush=True)


def value(text):
    try:
        number = float(text)
    except ValueError:
        return text
    return int(number) if number.is_integer() and 'e' not in text.lower() and '.' not in text else number


def parse_lines(text):
    """Every @result object in `text`, in order; a malformed line is reported, not skipped silently."""
    objects, errors = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.startswith(PREFIX):
            continue
        try:
            obj = json.loads(line[len(PREFIX):])
            if not isinstance(obj, dict):
                raise ValueError('not an object')
            objects.append(obj)
        except ValueError as error:
            errors.append(f'line {number}: {error}')
    return objects, errors


def split_points(objects):
    """(the objects of no point, {point: its objects}) in the order they came."""
    rest, points = [], {}
    for obj in objects:
        point = obj.get('point')
        if isinstance(point, (int, float)) and not isinstance(point, bool):
            points.setdefault(point, []).append(obj)
        else:
            rest.append(obj)
    return rest, points


def merge(objects):
    """One run's figures from its @result lines: dictionaries merged key by key, later lines win."""
    run = {'runners': {}, 'figures': {}}
    for obj in objects:
        for name, figures in obj.get('runners', {}).items():
            run['runners'].setdefault(name, {}).update(figures)
        run['figures'].update(obj.get('figures', {}))
        if 'size_mib' in obj:
            run['size_mib'] = obj['size_mib']
    return run


def main(args):
    runner = None
    if args[:1] == ['--runner']:
        if len(args) < 2:
            sys.exit(__doc__)
        runner, args = args[1], args[2:]
    pairs = {}
    for arg in args:
        key, sep, text = arg.partition('=')
        if not sep or not key:
            sys.exit(f'result.py: expected KEY=VALUE, got {arg!r}')
        pairs[key] = value(text)
    size = pairs.pop('size_mib', None) if runner is None else None
    if runner is not None:
        emit(runners={runner: pairs})
    else:
        emit(figures=pairs, size_mib=size)


if __name__ == '__main__':
    main(sys.argv[1:])
