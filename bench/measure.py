#!/usr/bin/env python3
"""Runs commands alternately for several rounds and prints median wall-time ratios, median CPU
time (user + system, of the command and every process it waited for) and peak RSS.
Usage: measure.py [--label TEXT] [--setup 'SHELL_CMD'] [--warmup] ROUNDS NAME_A 'SHELL_CMD_A' NAME_B 'SHELL_CMD_B' [NAME 'CMD']...
The first command is ours; the ratio is printed against each of the others. The order of the
commands rotates every round. Each command runs under /bin/sh; peak RSS is the largest resident
set of any process in it (from wait4's rusage of the shell, which includes its waited-for
children). --setup runs before every timed command, untimed, with the command's NAME as $1 (for
example to move its previous output aside and flush dirty pages with sync). --warmup runs every
command once, untimed, before the rounds (the first run after a benchmark's set-up is slower,
whichever command it is). --label names the comparison in the @result line (when one benchmark
compares several things). The same figures go out as one `@result` line (bench/result.py).
"""
import os, statistics, subprocess, sys, time
import result

def run(cmd):
    start = time.perf_counter()
    p = subprocess.Popen(['/bin/sh', '-c', cmd])
    _, status, usage = os.wait4(p.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f'command failed ({status}): {cmd}')
    return elapsed, usage.ru_maxrss, usage.ru_utime + usage.ru_stime  # KiB on Linux

def main():
    args = sys.argv[1:]
    label = ''
    if args[:1] == ['--label']:
        label, args = args[1] + ' ', args[2:]
    setup = None
    if args[:1] == ['--setup']:
        setup, args = args[1], args[2:]
    warmup = args[:1] == ['--warmup']
    if warmup:
        args = args[1:]
    rounds = int(args[0])
    commands = list(zip(args[1::2], args[2::2]))
    if len(commands) < 2 or len(args) % 2 == 0:
        sys.exit(__doc__)
    times = {name: [] for name, _ in commands}
    rss = {name: 0 for name, _ in commands}
    cpu = {name: [] for name, _ in commands}
    for name, cmd in commands if warmup else []:
        if setup:
            subprocess.run(['/bin/sh', '-c', setup, 'setup', name], check=True)
        t, _, _ = run(cmd)
        print(f'  warm-up: {name:<14} {t:7.2f} s (not counted)', flush=True)
    for r in range(rounds):
        k = r % len(commands)
        for name, cmd in commands[k:] + commands[:k]:
            if setup:
                subprocess.run(['/bin/sh', '-c', setup, 'setup', name], check=True)
            t, m, c = run(cmd)
            times[name].append(t)
            cpu[name].append(c)
            rss[name] = max(rss[name], m)
            print(f'  round {r + 1}: {name:<14} {t:7.2f} s  CPU {c:6.2f} s  peak RSS {m / 1024:7.1f} MiB', flush=True)
    median = {name: statistics.median(times[name]) for name, _ in commands}
    ours = commands[0][0]
    print('median wall time: ' + ', '.join(f'{name} {median[name]:.2f} s' for name, _ in commands))
    for name, _ in commands[1:]:
        print(f'ratio {ours} / {name}: {median[ours] / median[name]:.2f}x')
    cpu_median = {name: statistics.median(cpu[name]) for name, _ in commands}
    print('median CPU time: ' + ', '.join(f'{name} {cpu_median[name]:.2f} s' for name, _ in commands))
    for name, _ in commands[1:]:
        if cpu_median[name] > 0:
            print(f'CPU ratio {ours} / {name}: {cpu_median[ours] / cpu_median[name]:.2f}x')
    print('peak RSS: ' + ', '.join(f'{name} {rss[name] / 1024:.1f} MiB' for name, _ in commands))
    result.emit(runners={label + name: {'wall_s': round(median[name], 4), 'cpu_s': round(cpu_median[name], 4),
                                'peak_rss_mib': round(rss[name] / 1024, 1), 'rounds': rounds} for name, _ in commands},
                figures={f'{label}time {ours} / {name}': round(median[ours] / median[name], 4) for name, _ in commands[1:]})

if __name__ == '__main__':
    main()
