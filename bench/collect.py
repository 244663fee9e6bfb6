#!/usr/bin/env python3
"""Adds one benchmark run to the results file (docs/benchmarks/results.json by default): the figures
of every `@result` line in the run's log (bench/result.py), merged, with what ran and how it ended.

  collect.py RESULTS NAME SIZE_CLASS SIZE_MIB EXIT_CODE SECONDS LOG COMMAND COMPARES

The run replaces the one of the same NAME and SIZE_CLASS; runs at other sizes stay, so that sweeps
at several sizes add up to the cost-against-size charts of bench/charts.py. The lines of a
benchmark that measured several sizes in one run (each line with its "point", bench/result.py)
become one run per point, recorded as SIZE_CLASS@POINT beside the run itself (which keeps the
lines of no point, such as ratios between the sizes); they replace every SIZE_CLASS@… run of the
same NAME. A run that failed is
recorded as failed, with whatever figures it printed before it stopped. The file is replaced
atomically (written beside it, then renamed)."""
import datetime, json, os, sys

import result

FORMAT = 'assetpacks-bench-results'


def machine():
    cores = os.cpu_count()
    memory = None
    try:
        with open('/proc/meminfo') as f:
            for line in f:
                if line.startswith('MemTotal:'):
                    memory = round(int(line.split()[1]) / 2**20)
    except OSError:
        pass
    system = None
    try:
        with open('/etc/os-release') as f:
            for line in f:
                if line.startswith('PRETTY_NAME='):
                    system = line.split('=', 1)[1].strip().strip('"')
    except OSError:
        pass
    return {'cores': cores, 'memory_gib': memory, 'system': system}


def load_average():
    try:
        with open('/proc/loadavg') as f:
            return [float(x) for x in f.read().split()[:3]]
    except OSError:
        return None


def load(path):
    if not os.path.exists(path):
        return {'format': FORMAT, 'version': 1, 'benchmarks': {}}
    with open(path) as f:
        data = json.load(f)
    if data.get('format') != FORMAT or not isinstance(data.get('benchmarks'), dict):
        sys.exit(f'collect.py: {path} is not a results file (format {data.get("format")!r})')
    return data


def save(path, data):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    temporary = f'{path}.{os.getpid()}.tmp'
    with open(temporary, 'w') as f:
        json.dump(data, f, indent=1)
        f.write('\n')
    os.replace(temporary, path)


def main(args):
    if len(args) != 9:
        sys.exit(__doc__)
    path, name, size_class, size_mib, code, seconds, log, command, compares = args
    try:
        with open(log, errors='replace') as f:
            objects, errors = result.parse_lines(f.read())
    except OSError as error:
        objects, errors = [], [f'cannot read the log: {error.strerror}']
    objects, points = result.split_points(objects)
    run = result.merge(objects)
    run.setdefault('size_mib', result.value(size_mib))
    status = 'ok' if code == '0' else f'failed (exit {code})'
    if status == 'ok' and not run['runners'] and not run['figures'] and not points:
        status = 'no figures (no @result line in the log)'
    common = dict(seconds=round(float(seconds), 1), command=command, log=log,
                  date=datetime.date.today().isoformat(), machine=machine(), load=load_average())
    run.update(status=status, **common)
    if errors:
        run['malformed_result_lines'] = errors
    data = load(path)
    entry = data['benchmarks'].setdefault(name, {'runs': {}})
    entry['compares'] = compares
    entry['runs'] = {key: old for key, old in entry['runs'].items() if key != size_class and not key.startswith(size_class + '@')}
    for point, point_objects in sorted(points.items()):
        point_run = result.merge(point_objects)
        # A point whose closing line (its size_mib) came was measured whole, whatever came after.
        point_run.update(status='ok' if 'size_mib' in point_run or status == 'ok' else status, **common)
        point_run.setdefault('size_mib', point)
        entry['runs'][f'{size_class}@{point:g}'] = point_run
    if points:   # the run's own figures (those between its sizes) sit at its largest point
        run['size_mib'] = max(entry['runs'][f'{size_class}@{point:g}']['size_mib'] for point in points)
    entry['runs'][size_class] = run   # after its points: the figures between them come last
    save(path, data)
    print(f'{name} ({size_class}): {status}; {len(run["runners"])} runners, {len(run["figures"])} figures -> {path}')


if __name__ == '__main__':
    main(sys.argv[1:])
