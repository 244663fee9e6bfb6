#!/usr/bin/env python3
"""Runs two commands alternately for several rounds and prints median wall-time ratio and peak RSS.
Usage: measure.py [--setup 'SHELL_CMD'] ROUNDS NAME_A 'SHELL_CMD_A' NAME_B 'SHELL_CMD_B'
Each command runs under /bin/sh; peak RSS is the largest resident set of any process in it
(from wait4's rusage of the shell, which includes its waited-for children).
--setup runs before every timed command, untimed, with the command's NAME as $1 (for example
to empty its output folder and flush dirty pages with sync)."""
import os, statistics, subprocess, sys, time

def run(cmd):
    start = time.perf_counter()
    p = subprocess.Popen(['/bin/sh', '-c', cmd])
    _, status, usage = os.wait4(p.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f'command failed ({status}): {cmd}')
    return elapsed, usage.ru_maxrss  # KiB on Linux

def main():
    args = sys.argv[1:]
    setup = None
    if args[:1] == ['--setup']:
        setup, args = args[1], args[2:]
    rounds = int(args[0])
    (name_a, cmd_a), (name_b, cmd_b) = (args[1], args[2]), (args[3], args[4])
    times = {name_a: [], name_b: []}
    rss = {name_a: 0, name_b: 0}
    for r in range(rounds):
        for name, cmd in ((name_a, cmd_a), (name_b, cmd_b)) if r % 2 == 0 else ((name_b, cmd_b), (name_a, cmd_a)):
            if setup:
                subprocess.run(['/bin/sh', '-c', setup, 'setup', name], check=True)
            t, m = run(cmd)
            times[name].append(t)
            rss[name] = max(rss[name], m)
            print(f'  round {r + 1}: {name:<10} {t:7.2f} s  peak RSS {m / 1024:7.1f} MiB', flush=True)
    ma, mb = statistics.median(times[name_a]), statistics.median(times[name_b])
    print(f'median wall time: {name_a} {ma:.2f} s, {name_b} {mb:.2f} s -> ratio {ma / mb:.2f}x')
    print(f'peak RSS: {name_a} {rss[name_a] / 1024:.1f} MiB, {name_b} {rss[name_b] / 1024:.1f} MiB')

if __name__ == '__main__':
    main()
